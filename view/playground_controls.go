package view

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Control is one control of the playground: a choice among Options for
// one field of a Playground, named Key in a URL query. The notebook's
// widgets and the planner's playground page offer the same controls.
type Control struct {
	Key, Label string
	Options    []string
	get        func(Playground) string
	set        func(*Playground, string) error
}

// Value is the option pg has selected.
func (c Control) Value(pg Playground) string { return c.get(pg) }

// Set selects option v in pg, or returns an error naming the valid ones.
func (c Control) Set(pg *Playground, v string) error {
	if !slices.Contains(c.Options, v) {
		return fmt.Errorf("view: %s=%q is not an option (valid: %v)", c.Key, v, c.Options)
	}
	return c.set(pg, v)
}

// The playground's numeric choices. Powers of two cover the layouts
// people run.
var (
	pgGPUs    = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}
	pgSeqs    = []int{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}
	pgMicro   = []int{1, 2, 4, 8, 16}
	pgDegrees = []int{1, 2, 4, 8, 16, 32}
	pgZeRO    = []int{0, 1, 2, 3}
)

// PlaygroundControls lists the controls in the order they are shown:
// model, GPU, GPU count, sequence, micro-batch, ZeRO stage, tp, pp, cp,
// recompute, precision.
func PlaygroundControls() []Control {
	var models, gpus []string
	for _, m := range costmodel.Models() {
		models = append(models, m.Name)
	}
	for _, g := range hardware.GPUs() {
		gpus = append(gpus, g.Name)
	}
	return []Control{
		textControl("model", "model", models, func(p *Playground) *string { return &p.Model }),
		textControl("gpu", "GPU", gpus, func(p *Playground) *string { return &p.GPU }),
		number("gpus", "GPUs", pgGPUs, func(p *Playground) *int { return &p.GPUs }),
		number("seq", "sequence", pgSeqs, func(p *Playground) *int { return &p.Seq }),
		number("mbs", "micro-batch", pgMicro, func(p *Playground) *int { return &p.MicroBatch }),
		number("zero", "ZeRO stage", pgZeRO, func(p *Playground) *int { return &p.ZeRO }),
		number("tp", "tensor parallel", pgDegrees, func(p *Playground) *int { return &p.TP }),
		number("pp", "pipeline parallel", pgDegrees, func(p *Playground) *int { return &p.PP }),
		number("cp", "context parallel", pgDegrees, func(p *Playground) *int { return &p.CP }),
		enum("recompute", "recompute", []costmodel.Recompute{costmodel.NoRecompute, costmodel.Selective, costmodel.Full},
			func(p *Playground) *costmodel.Recompute { return &p.Recompute }),
		enum("precision", "precision", []costmodel.Precision{costmodel.BF16, costmodel.FP16, costmodel.FP8, costmodel.FP32},
			func(p *Playground) *costmodel.Precision { return &p.Precision }),
	}
}

func textControl(key, label string, options []string, field func(*Playground) *string) Control {
	return Control{key, label, options,
		func(p Playground) string { return *field(&p) },
		func(p *Playground, v string) error { *field(p) = v; return nil }}
}

func number(key, label string, options []int, field func(*Playground) *int) Control {
	return Control{key, label, ints(options),
		func(p Playground) string { return strconv.Itoa(*field(&p)) },
		func(p *Playground, v string) (err error) { *field(p), err = strconv.Atoi(v); return err }}
}

// enum is a control over a costmodel enum, named by its String.
func enum[E fmt.Stringer](key, label string, options []E, field func(*Playground) *E) Control {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.String()
	}
	return Control{key, label, names,
		func(p Playground) string { return (*field(&p)).String() },
		func(p *Playground, v string) error { *field(p) = options[slices.Index(names, v)]; return nil }}
}

func ints(vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return out
}

// Query is pg as URL query parameters, one per control, so a page's
// address holds the whole setting.
func (pg Playground) Query() url.Values {
	q := url.Values{}
	for _, c := range PlaygroundControls() {
		q.Set(c.Key, c.Value(pg))
	}
	return q
}

// ParsePlayground reads a setting from URL query parameters; a control
// the query leaves out keeps DefaultPlayground's value. An unknown key or
// a value that is not one of a control's options is an error.
func ParsePlayground(q url.Values) (Playground, error) {
	pg := DefaultPlayground()
	controls := PlaygroundControls()
	for _, key := range slices.Sorted(maps.Keys(q)) {
		if !slices.ContainsFunc(controls, func(c Control) bool { return c.Key == key }) {
			return pg, fmt.Errorf("view: unknown playground parameter %q", key)
		}
	}
	for _, c := range controls {
		if v := q.Get(c.Key); q.Has(c.Key) {
			if err := c.Set(&pg, v); err != nil {
				return DefaultPlayground(), err
			}
		}
	}
	return pg, nil
}
