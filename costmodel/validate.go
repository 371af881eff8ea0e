package costmodel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpu-planner/planner/hardware"
)

// Limits on plan fields: far beyond any job run, tight enough to keep all
// arithmetic finite and exact.
const (
	maxSeq         = 1 << 24 // 16M tokens
	maxMicroBatch  = 1 << 16
	maxGlobalBatch = 1 << 30
)

// Normalize checks p against the model and the number of GPUs, and
// returns it in canonical form: VPP 0 becomes 1, sequence parallelism is
// off when TP is 1 (it would change nothing), and an uneven layer split
// is filled in (see balanceLayers). gpus 0 skips the GPU-count check.
func (p Plan) Normalize(m *Model, gpus int) (Plan, error) {
	if p.VPP == 0 {
		p.VPP = 1
	}
	if p.TP == 1 {
		p.SP = false
	}
	p.EP, p.ETP = max(p.EP, 1), max(p.ETP, 1)
	if p.RecomputeModules == ModCoreAttn {
		p.RecomputeModules = 0
	}
	if err := p.checkRanges(); err != nil {
		return p, err
	}
	if err := p.checkModules(m); err != nil {
		return p, err
	}
	p.normalizeRecompute()
	if _, ok := hardware.MulCount(p.TP, p.PP, p.CP, p.DP); !ok {
		return p, fmt.Errorf("costmodel: tp*pp*cp*dp = %d*%d*%d*%d is more than %d GPUs", p.TP, p.PP, p.CP, p.DP, hardware.MaxGPUs)
	}
	if gpus != 0 && p.GPUs() != gpus {
		return p, fmt.Errorf("costmodel: tp*pp*cp*dp = %d*%d*%d*%d = %d, but the cluster has %d GPUs",
			p.TP, p.PP, p.CP, p.DP, p.GPUs(), gpus)
	}
	if err := p.checkHeads(m); err != nil {
		return p, err
	}
	if err := p.checkSequence(); err != nil {
		return p, err
	}
	if err := p.checkPacking(); err != nil {
		return p, err
	}
	if err := p.checkBatch(); err != nil {
		return p, err
	}
	if err := p.checkExperts(m); err != nil {
		return p, err
	}
	if p.VPP > 1 && p.PP == 1 {
		return p, fmt.Errorf("costmodel: vpp=%d needs pp > 1", p.VPP)
	}
	if err := p.normalizeTune(); err != nil {
		return p, err
	}
	if m.MLA != nil && p.LoRATargets&TargetQKV != 0 {
		return p, fmt.Errorf("costmodel: LoRA target qkv is the fused query-key-value projection, which MLA does not have (use q, k, v)")
	}
	p, err := p.balanceLayers(m.Layers)
	if err != nil {
		return p, err
	}
	if err := p.checkPartialRecompute(m); err != nil {
		return p, err
	}
	return p, p.checkActOffload(m)
}

func (p Plan) checkRanges() error {
	for _, d := range []struct {
		name   string
		v, max int
	}{{"tp", p.TP, hardware.MaxGPUs}, {"pp", p.PP, hardware.MaxGPUs}, {"cp", p.CP, hardware.MaxGPUs},
		{"dp", p.DP, hardware.MaxGPUs}, {"ep", p.EP, hardware.MaxGPUs}, {"etp", p.ETP, hardware.MaxGPUs}, {"vpp", p.VPP, 1 << 10}, {"mbs", p.MicroBatch, maxMicroBatch},
		{"gbs", p.GlobalBatch, maxGlobalBatch}, {"seq", p.Seq, maxSeq}} {
		if d.v < 1 || d.v > d.max {
			return fmt.Errorf("costmodel: %s=%d is not in [1, %d]", d.name, d.v, d.max)
		}
	}
	if p.GPUs() > hardware.MaxGPUs {
		return fmt.Errorf("costmodel: tp*pp*cp*dp = %d exceeds %d GPUs", p.GPUs(), hardware.MaxGPUs)
	}
	if p.ZeRO < 0 || p.ZeRO > 3 {
		return fmt.Errorf("costmodel: zero=%d is not a ZeRO stage (valid: 0, 1, 2, 3)", p.ZeRO)
	}
	if p.FirstStageLayers < 0 || p.LastStageLayers < 0 {
		return fmt.Errorf("costmodel: first/last stage layers (%d, %d) must not be negative", p.FirstStageLayers, p.LastStageLayers)
	}
	return nil
}

// checkHeads is CheckTP for p.TP, which is positive.
func (p Plan) checkHeads(m *Model) error {
	if m.Heads%p.TP != 0 {
		return fmt.Errorf("costmodel: tp=%d does not divide %d attention heads (valid tp: %s)",
			p.TP, m.Heads, validTP(m))
	}
	if !m.SplitsHeads(p.TP) {
		return fmt.Errorf("costmodel: tp=%d neither divides nor is a multiple of %d KV heads (valid tp: %s)", p.TP, m.KVHeads, validTP(m))
	}
	return nil
}

// SplitsHeads reports whether tp splits m's attention sensibly: it
// divides the attention heads, and it divides the KV heads or is a
// multiple of them (each rank then keeps one replicated KV head).
// CheckTP says why not.
func (m *Model) SplitsHeads(tp int) bool {
	return tp >= 1 && m.Heads%tp == 0 && (m.KVHeads%tp == 0 || tp%m.KVHeads == 0)
}

// CheckTP returns an error naming tp and the valid degrees unless tp
// splits m's attention (SplitsHeads).
func (m *Model) CheckTP(tp int) error {
	if tp < 1 {
		return fmt.Errorf("costmodel: tp=%d is not positive", tp)
	}
	return (Plan{TP: tp}).checkHeads(m)
}

// validTP lists the first 16 degrees SplitsHeads accepts, for error
// messages.
func validTP(m *Model) string {
	var ds []string
	for d := 1; d <= m.Heads && len(ds) < 16; d++ {
		if m.SplitsHeads(d) {
			ds = append(ds, strconv.Itoa(d))
		}
	}
	return strings.Join(ds, ", ")
}

func (p Plan) checkSequence() error {
	if p.CP > 1 {
		if p.Attention == Eager {
			return fmt.Errorf("costmodel: cp=%d needs FlashAttention (ring attention exchanges blocks of keys and values; use --attn flash)", p.CP)
		}
		// Megatron-Core splits the sequence into 2*cp chunks to balance
		// the causal mask across ranks.
		if p.Seq%(2*p.CP) != 0 {
			return fmt.Errorf("costmodel: cp=%d does not split seq=%d into 2*cp equal chunks (valid cp: %s)", p.CP, p.Seq, ValidCPList(p.Seq))
		}
	}
	if p.SP && (p.Seq/p.CP)%p.TP != 0 {
		return fmt.Errorf("costmodel: sequence parallelism splits seq/cp = %d tokens over tp=%d ranks, which does not divide", p.Seq/p.CP, p.TP)
	}
	return nil
}

func (p Plan) checkBatch() error {
	if p.GlobalBatch%(p.MicroBatch*p.DP) != 0 {
		return fmt.Errorf("costmodel: gbs=%d is not a multiple of mbs*dp = %d*%d = %d",
			p.GlobalBatch, p.MicroBatch, p.DP, p.MicroBatch*p.DP)
	}
	return nil
}
