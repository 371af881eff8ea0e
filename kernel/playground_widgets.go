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
	var models, gpus, recomputes []string
	for _, m := range costmodel.Models() {
		models = append(models, m.Name)
	}
	for _, g := range hardware.GPUs() {
		gpus = append(gpus, g.Name)
	}
	for _, r := range pgRecomputes {
		recomputes = append(recomputes, r.String())
	}
	controls := []struct {
		label   string
		options []string
		value   string
	}{
		{"model", models, start.Model}, {"GPU", gpus, start.GPU}, {"GPUs", ints(pgGPUs), strconv.Itoa(start.GPUs)},
		{"sequence", ints(pgSeqs), strconv.Itoa(start.Seq)}, {"micro-batch", ints(pgMicro), strconv.Itoa(start.MicroBatch)},
		{"ZeRO stage", ints(pgZeRO), strconv.Itoa(start.ZeRO)}, {"tensor parallel", ints(pgDegrees), strconv.Itoa(start.TP)},
		{"pipeline parallel", ints(pgDegrees), strconv.Itoa(start.PP)}, {"context parallel", ints(pgDegrees), strconv.Itoa(start.CP)},
		{"recompute", recomputes, start.Recompute.String()},
	}
	// state holds each control's selected index; the widgets' own values
	// are updated concurrently with their Listen channels, so the loop
	// below keeps its own copy from the channels.
	state := make([]int, len(controls))
	updates := make(chan [2]int, len(controls))
	for i, c := range controls {
		state[i] = max(slices.Index(c.options, c.value), 0)
		w := widgets.Select(c.options).SetDefault(state[i]).AppendTo(pgRow(root, c.label)).Done()
		go forward(i, w.Listen(), updates)
	}
	done := widgets.Button("done").AppendTo(pgRow(root, "")).Done().Listen()
	out := "planner_pg_out_" + gonbui.UniqueId()
	dom.Append(root, fmt.Sprintf(`<div id=%q></div>`, out))

	current := func() Playground {
		return Playground{Model: models[state[0]], GPU: gpus[state[1]], GPUs: pgGPUs[state[2]], Seq: pgSeqs[state[3]],
			MicroBatch: pgMicro[state[4]], ZeRO: pgZeRO[state[5]], TP: pgDegrees[state[6]], PP: pgDegrees[state[7]],
			CP: pgDegrees[state[8]], Recompute: pgRecomputes[state[9]]}
	}
	dom.SetInnerHtml(out, current().Render())
	timeout := time.After(time.Hour)
	for {
		select {
		case u := <-updates:
			if u[1] < 0 || u[1] >= len(controls[u[0]].options) {
				continue // not an option of the control: ignore it
			}
			state[u[0]] = u[1]
			dom.SetInnerHtml(out, current().Render())
		case <-done.C:
			gonbui.DisplayHTML(current().Render())
			return
		case <-timeout:
			gonbui.DisplayHTML(current().Render())
			return
		}
	}
}

// pgRow appends a labelled row to the playground and returns its id.
func pgRow(root, label string) string {
	id := "planner_pg_" + gonbui.UniqueId()
	dom.Append(root, fmt.Sprintf(`<div id=%q style="margin:3px 0;font:13px system-ui,sans-serif">`+
		`<span style="display:inline-block;width:9em">%s</span></div>`, id, label))
	return id
}

// forward sends control i's new values to the playground's loop.
func forward(i int, c *comms.AddressChan[int], to chan<- [2]int) {
	for v := range c.C {
		to <- [2]int{i, v}
	}
}

func ints(vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return out
}
