package kernel

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// The playground's choices. Powers of two cover the layouts people run.
var (
	pgGPUs       = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}
	pgSeqs       = []int{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}
	pgMicro      = []int{1, 2, 4, 8, 16}
	pgDegrees    = []int{1, 2, 4, 8, 16, 32}
	pgZeRO       = []int{0, 1, 2, 3}
	pgRecomputes = []costmodel.Recompute{costmodel.NoRecompute, costmodel.Selective, costmodel.Full}
)

// ShowPlayground displays controls for a Playground setting (model, GPU,
// GPU count, sequence length, micro-batch, ZeRO stage, tp, pp, cp,
// recompute) and redraws Render's output whenever one changes, until the
// "done" button is pressed or an hour has passed; the last output stays
// in the notebook. It needs a browser: it does nothing outside a notebook,
// and a headless run (nbconvert) would wait on it forever, so notebooks
// guard it.
func ShowPlayground(start Playground) {
	if !gonbui.IsNotebook {
		return
	}
	root := dom.CreateTransientDiv()
	var models, gpus []string
	for _, m := range costmodel.Models() {
		models = append(models, m.Name)
	}
	for _, g := range hardware.GPUs() {
		gpus = append(gpus, g.Name)
	}
	var changes []*comms.AddressChan[int]
	row := func(label string) string {
		id := "planner_pg_" + gonbui.UniqueId()
		dom.Append(root, fmt.Sprintf(`<div id=%q style="margin:3px 0;font:13px system-ui,sans-serif"><span style="display:inline-block;width:9em">%s</span></div>`, id, label))
		return id
	}
	sel := func(label string, options []string, value string) *widgets.SelectBuilder {
		w := widgets.Select(options).SetDefault(max(slices.Index(options, value), 0)).AppendTo(row(label)).Done()
		changes = append(changes, w.Listen().LatestOnly())
		return w
	}
	model := sel("model", models, start.Model)
	gpu := sel("GPU", gpus, start.GPU)
	count := sel("GPUs", ints(pgGPUs), strconv.Itoa(start.GPUs))
	seq := sel("sequence", ints(pgSeqs), strconv.Itoa(start.Seq))
	micro := sel("micro-batch", ints(pgMicro), strconv.Itoa(start.MicroBatch))
	zero := sel("ZeRO stage", ints(pgZeRO), strconv.Itoa(start.ZeRO))
	tp := sel("tensor parallel", ints(pgDegrees), strconv.Itoa(start.TP))
	pp := sel("pipeline parallel", ints(pgDegrees), strconv.Itoa(start.PP))
	cp := sel("context parallel", ints(pgDegrees), strconv.Itoa(start.CP))
	var rcNames []string
	for _, r := range pgRecomputes {
		rcNames = append(rcNames, r.String())
	}
	rc := sel("recompute", rcNames, start.Recompute.String())
	done := widgets.Button("done").AppendTo(row("")).Done()
	out := "planner_pg_out_" + gonbui.UniqueId()
	dom.Append(root, fmt.Sprintf(`<div id=%q></div>`, out))

	current := func() Playground {
		return Playground{Model: models[model.Value()], GPU: gpus[gpu.Value()], GPUs: pgGPUs[count.Value()],
			Seq: pgSeqs[seq.Value()], MicroBatch: pgMicro[micro.Value()], ZeRO: pgZeRO[zero.Value()],
			TP: pgDegrees[tp.Value()], PP: pgDegrees[pp.Value()], CP: pgDegrees[cp.Value()], Recompute: pgRecomputes[rc.Value()]}
	}
	dom.SetInnerHtml(out, start.Render())
	changed := merge(changes)
	stop, timeout := done.Listen(), time.After(time.Hour)
	for {
		select {
		case <-changed:
			dom.SetInnerHtml(out, current().Render())
		case <-stop.C:
			gonbui.DisplayHTML(current().Render())
			return
		case <-timeout:
			gonbui.DisplayHTML(current().Render())
			return
		}
	}
}

// merge forwards a signal for every value any of the channels receives.
func merge(chans []*comms.AddressChan[int]) <-chan struct{} {
	out := make(chan struct{}, 1)
	for _, c := range chans {
		go func() {
			for range c.C {
				select {
				case out <- struct{}{}:
				default: // a redraw is already pending
				}
			}
		}()
	}
	return out
}

func ints(vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return out
}
