package kernel

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/gpu-planner/planner/view"
)

// playgroundIdle is how long the controls wait for a change before they
// close by themselves: while they are live the cell is running, and the
// kernel runs no other cell.
const playgroundIdle = 15 * time.Minute

// ShowPlayground displays view.PlaygroundControls for a setting and
// redraws its Render output whenever one changes. The cell runs while the
// controls are live, so the kernel is busy: pressing "done", interrupting
// the kernel (the stop button) or leaving the controls untouched for
// playgroundIdle removes the controls, displays the last setting's
// output, which stays in the notebook, and ends the cell. It needs a
// browser: it does nothing outside a notebook, and a headless run
// (nbconvert) would wait on it, so notebooks guard it.
func ShowPlayground(start view.Playground) {
	if !gonbui.IsNotebook {
		return
	}
	root := dom.CreateTransientDiv()
	controls := view.PlaygroundControls()
	// state holds each control's selected index; the loop keeps its own
	// copy from the Listen channels, which update concurrently.
	state := make([]int, len(controls))
	updates := make(chan [2]int, len(controls))
	for i, c := range controls {
		state[i] = max(slices.Index(c.Options, c.Value(start)), 0)
		w := widgets.Select(c.Options).SetDefault(state[i]).AppendTo(pgRow(root, c.Label)).Done()
		go forward(i, w.Listen(), updates)
	}
	done := widgets.Button("done").AppendTo(pgRow(root, "")).Done().Listen()
	out := "planner_pg_out_" + gonbui.UniqueId()
	dom.Append(root, fmt.Sprintf(`<div id=%q></div>`, out))
	current := func() view.Playground {
		pg := start
		for i, c := range controls {
			_ = c.Set(&pg, c.Options[state[i]]) // an index into Options: always valid
		}
		return pg
	}
	dom.SetInnerHtml(out, current().Render())
	waitPlayground(controls, state, updates, done, func() { dom.SetInnerHtml(out, current().Render()) })
	dom.Remove(root)
	displayHTML(current().Render() + "<p><i>Playground closed: re-run the cell to change the setting.</i></p>")
}

// waitPlayground applies updates to state and calls redraw, until done
// is pressed, the kernel is interrupted, or nothing changes for
// playgroundIdle.
func waitPlayground(controls []view.Control, state []int, updates <-chan [2]int, done *comms.AddressChan[int], redraw func()) {
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	idle := time.NewTimer(playgroundIdle)
	defer idle.Stop()
	for {
		select {
		case u := <-updates:
			if u[1] < 0 || u[1] >= len(controls[u[0]].Options) {
				continue // not an option of the control: ignore it
			}
			state[u[0]] = u[1]
			redraw()
			idle.Reset(playgroundIdle)
		case <-done.C:
			return
		case <-interrupt:
			return
		case <-idle.C:
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
