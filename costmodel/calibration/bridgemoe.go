package calibration

import (
	"regexp"
	"slices"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
)

// Megatron-Bridge's MoE performance recipes changed from release to
// release, and each row of its performance summary ran the recipe of its
// own NeMo container: the same Qwen3-30B-A3B layout on 8 B300s went from
// 30.7k tokens/s a GPU (26.04.01) to 40.8k (26.06) when the recipe
// turned on full-iteration CUDA graphs and the all-to-all overlap. So a
// row takes the recipe of its release (bridgeMoERecipes), read from
// NVIDIA-NeMo/Megatron-Bridge at the commit that published the
// release's table in docs/performance-summary.md (bridgeReleaseCommits):
// scripts/performance/configs/{qwen3,deepseek}/*_llm_pretrain.yaml for
// 25.09, scripts/performance/configs/{qwen,gpt_oss,deepseek}/
// *_workload_base_configs.py from 25.11 to 26.06, and
// src/megatron/bridge/perf_recipes/{qwen,gpt_oss,deepseek}/<gpu>/*.py
// with their common.py helpers from 26.06.01.
// scripts/bridge-moe-recipes.py prints the 25.11-26.06 configs from a
// clone at these commits, the settings this table holds side by side.
var bridgeReleaseCommits = map[string]string{
	"25.09": "af6bc366d", "25.11": "97ad8cc6f", "26.02": "c0b9a0003", "26.02.01": "cfeddcd94",
	"26.04": "74695a06d", "26.04.01": "17a381f95", "26.06": "63b08b397", "26.06.01": "381d0b825", "26.08": "4ab94dfad",
}

// moeRecipe is what one release's MoE recipe sets beyond the table's
// columns, for the model, GPU, training format and (where a release has
// several variants) layout it names: whether the expert-parallel
// all-to-alls overlap the other micro-batch's compute (moe_a2a_overlap,
// from 26.06.01 comm_overlap.overlap_moe_expert_parallel_comm), the token
// dispatcher (moe_flex_dispatcher_backend; none set: alltoall), the CUDA
// graphs (cuda_graph_impl and cuda_graph_scope: "attn" is attention,
// "moe_router" and "moe_preprocess" the router; 25.09's cuda_graphs
// switch is Megatron's local graphs without a scope), the modules it
// recomputes ("" none set, "none" an empty list), and two settings the
// model does not price: attention in FP8 (fp8_dot_product_attention)
// and the CuTe DSL fused grouped MLP (cutedsl_fused_grouped_mlp, or
// Transformer Engine's op fuser from 26.06.01).
type moeRecipe struct {
	releases               string // NeMo containers, space-separated
	model, gpu, format     string // format "" for any
	pp, ep                 int    // 0: any
	overlap                bool
	dispatcher, graphs     string
	recompute              string
	fp8Attention, fusedMLP bool
}

const (
	rel2602to2604 = "26.02 26.02.01 26.04 26.04.01"
	relFullIter   = "26.06 26.06.01 26.08"
	graphsAttn    = "attention, router"
	graphsRouter  = "router"
	graphsFull    = "full iteration"
	graphsLocal   = "layers (Megatron's local graphs, scope not stated)"
)

var bridgeMoERecipes = []moeRecipe{
	// Qwen3-30B-A3B: the common Qwen3 settings turn recomputation off.
	{releases: "25.09", model: "qwen3-30b-a3b", gpu: "gb200", dispatcher: "alltoall", graphs: graphsLocal},
	{releases: "25.11 " + rel2602to2604, model: "qwen3-30b-a3b", gpu: "gb200", format: "mxfp8", dispatcher: "HybridEP", graphs: graphsRouter},
	{releases: "25.11", model: "qwen3-30b-a3b", gpu: "gb300", format: "mxfp8", dispatcher: "HybridEP", graphs: graphsRouter},
	{releases: rel2602to2604, model: "qwen3-30b-a3b", gpu: "b300", format: "mxfp8", dispatcher: "HybridEP", graphs: graphsRouter},
	{releases: "26.02.01 26.04 26.04.01", model: "qwen3-30b-a3b", gpu: "b200", format: "mxfp8", dispatcher: "HybridEP", graphs: graphsAttn},
	{releases: rel2602to2604, model: "qwen3-30b-a3b", gpu: "h100-sxm", dispatcher: "HybridEP"},
	{releases: relFullIter, model: "qwen3-30b-a3b", gpu: "gb300", format: "mxfp8", overlap: true, dispatcher: "HybridEP", graphs: graphsFull, fp8Attention: true, fusedMLP: true},
	{releases: "26.06", model: "qwen3-30b-a3b", gpu: "b300", format: "mxfp8", overlap: true, dispatcher: "HybridEP", graphs: graphsFull, fp8Attention: true, fusedMLP: true},
	// Qwen3-235B-A22B.
	{releases: "25.09", model: "qwen3-235b-a22b", gpu: "h100-sxm", dispatcher: "alltoall"},
	{releases: "26.02 26.02.01", model: "qwen3-235b-a22b", gpu: "h100-sxm", overlap: true, dispatcher: "DeepEP"},
	{releases: "26.04 26.04.01", model: "qwen3-235b-a22b", gpu: "h100-sxm", overlap: true, dispatcher: "alltoall"},
	{releases: "26.02", model: "qwen3-235b-a22b", gpu: "b200", dispatcher: "DeepEP"},
	{releases: "26.04 26.04.01", model: "qwen3-235b-a22b", gpu: "b200", dispatcher: "alltoall"},
	{releases: "26.04", model: "qwen3-235b-a22b", gpu: "b300", dispatcher: "alltoall"},
	{releases: "26.04.01", model: "qwen3-235b-a22b", gpu: "b300", dispatcher: "HybridEP"},
	{releases: "25.11", model: "qwen3-235b-a22b", gpu: "gb200", dispatcher: "HybridEP", graphs: graphsAttn},
	{releases: "25.11", model: "qwen3-235b-a22b", gpu: "gb300", dispatcher: "HybridEP", graphs: graphsRouter},
	// gpt-oss-120b.
	{releases: "25.11", model: "gpt-oss-120b", gpu: "gb200", dispatcher: "alltoall", recompute: "layernorm, moe_act"},
	{releases: "26.02", model: "gpt-oss-120b", gpu: "b200", dispatcher: "alltoall", recompute: "layernorm, moe_act"},
	{releases: rel2602to2604, model: "gpt-oss-120b", gpu: "h100-sxm", dispatcher: "alltoall", recompute: "layernorm, moe_act"},
	{releases: rel2602to2604, model: "gpt-oss-120b", gpu: "gb300", format: "bf16", dispatcher: "alltoall", graphs: graphsAttn},
	{releases: "26.02.01", model: "gpt-oss-120b", gpu: "b300", dispatcher: "alltoall", graphs: graphsAttn},
	{releases: "26.04 26.04.01", model: "gpt-oss-120b", gpu: "b300", dispatcher: "HybridEP", graphs: graphsAttn},
	{releases: relFullIter, model: "gpt-oss-120b", gpu: "gb300", format: "mxfp8", overlap: true, dispatcher: "HybridEP", graphs: graphsFull, fp8Attention: true, fusedMLP: true},
	// DeepSeek-V3: 25.09's recipe recomputes selectively with
	// Megatron's default modules (the attention core).
	{releases: "25.09", model: "deepseek-v3", gpu: "b200", dispatcher: "alltoall", graphs: graphsLocal, recompute: "core_attn"},
	{releases: "25.09", model: "deepseek-v3", gpu: "gb200", dispatcher: "alltoall", recompute: "core_attn"},
	{releases: "25.11", model: "deepseek-v3", gpu: "b200", dispatcher: "alltoall", recompute: "mla_up_proj"},
	{releases: "25.11", model: "deepseek-v3", gpu: "gb200", dispatcher: "HybridEP", graphs: graphsRouter, recompute: "mla_up_proj"},
	{releases: "26.02 26.02.01", model: "deepseek-v3", gpu: "gb200", dispatcher: "HybridEP", graphs: graphsAttn, recompute: "mla_up_proj"},
	{releases: "26.04 26.04.01", model: "deepseek-v3", gpu: "gb200", dispatcher: "HybridEP", graphs: graphsAttn, recompute: "mlp"},
	{releases: "26.04.01", model: "deepseek-v3", gpu: "b200", pp: 8, ep: 32, overlap: true, dispatcher: "DeepEP", graphs: graphsAttn, recompute: "mla_up_proj, mlp"},
	{releases: relFullIter, model: "deepseek-v3", gpu: "gb300", format: "mxfp8", overlap: true, dispatcher: "HybridEP", graphs: graphsFull, recompute: "none", fp8Attention: true, fusedMLP: true},
}

// bridgeRelease is the NeMo container a Megatron-Bridge row ran ("" when
// the framework column names none).
func bridgeRelease(r Row) string {
	m := releasePattern.FindStringSubmatch(r.Get("framework"))
	if m == nil {
		return ""
	}
	return m[1]
}

var releasePattern = regexp.MustCompile(`NeMo ([0-9.]+) container`)

func (r moeRecipe) matches(c *Case, release string) bool {
	p := c.Plan
	eq := func(want, got int) bool { return want == 0 || want == got }
	return slices.Contains(strings.Fields(r.releases), release) && r.model == c.Model.Name && r.gpu == c.Cluster.GPU.Name &&
		(r.format == "" || r.format == p.Precision.String()) && eq(r.pp, p.PP) && eq(r.ep, p.EP)
}

// moeRecipes sets what the row's release's recipe states and prints the
// rest: the all-to-alls overlap compute only where the recipe says so;
// the DeepEP and HybridEP dispatchers send a token once per node
// (EPNodeDedup), the alltoall dispatcher every copy; CUDA graphs over
// the attention or the whole iteration hide the MoE layers' host syncs
// (GraphsHideHostSync: the host relaunches the next block in one graph
// launch), and without them each MoE layer's forward waits MoEHostSync
// on the host; other launch overhead is not modeled. The modules a
// recipe recomputes run as selective recompute of exactly those modules
// (costmodel.RecomputeModules). The router is force-balanced
// (Case.Assumptions).
func (c *Case) moeRecipes() {
	assume(&c.Assumed, "router force-balanced, dropless (MoELoadImbalance 1)")
	release := bridgeRelease(c.Row)
	for _, r := range bridgeMoERecipes {
		if r.matches(c, release) {
			c.applyMoERecipe(r, release)
			return
		}
	}
	assume(&c.Assumed, "recipe of %s for this layout not found: all-to-alls exposed", releaseName(release))
}

func releaseName(release string) string {
	if release == "" {
		return "the release"
	}
	return "NeMo " + release + " (Megatron-Bridge " + bridgeReleaseCommits[release] + ")"
}

// applyMoERecipe sets recipe r of release on the case.
func (c *Case) applyMoERecipe(r moeRecipe, release string) {
	from := releaseName(release)
	c.EPCommOverlap = r.overlap
	if r.overlap {
		assume(&c.Assumed, "recipe %s: moe_a2a_overlap (all-to-alls overlapped)", from)
	} else {
		assume(&c.Assumed, "recipe %s: all-to-alls exposed (no moe_a2a_overlap)", from)
	}
	switch r.dispatcher {
	case "DeepEP", "HybridEP":
		c.EPNodeDedup = true
		assume(&c.Assumed, "recipe: %s token dispatcher (all-to-all sending a token once per node)", r.dispatcher)
	default:
		assume(&c.Assumed, "recipe: %s token dispatcher (every copy sent)", r.dispatcher)
	}
	switch {
	case strings.Contains(r.graphs, "attention") || r.graphs == graphsFull:
		c.GraphsHideHostSync = true
		assume(&c.Assumed, "recipe: CUDA graphs over %s (the MoE layers' host syncs hidden: MoEHostSync 0)", r.graphs)
	case r.graphs != "":
		assume(&c.Assumed, "recipe: CUDA graphs over %s (the MoE layers' host syncs still priced)", r.graphs)
	default:
		assume(&c.Assumed, "recipe: no CUDA graphs (a host sync per MoE layer and forward pass, MoEHostSync)")
	}
	switch r.recompute {
	case "":
	case "none":
		c.Plan.Recompute, c.Plan.RecomputeModules = costmodel.NoRecompute, 0
		assume(&c.Assumed, "recipe: recompute_modules empty (no recompute)")
	default:
		c.recomputeModules(r.recompute)
	}
	if r.fp8Attention {
		assume(&c.Assumed, "recipe: fp8_dot_product_attention (attention in FP8; priced in bf16, not modeled)")
	}
	if r.fusedMLP {
		assume(&c.Assumed, "recipe: CuTe DSL fused grouped MLP (priced as separate kernels, not modeled)")
	}
}
