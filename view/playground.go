package view

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpu-planner/planner/costmodel"
	"github.com/gpu-planner/planner/hardware"
)

// Playground is one setting of the playground's controls (the notebook's
// widgets, the planner's playground page): a model trained on a number of
// GPUs of one type with a parallel layout, in a numeric precision.
// Data parallelism takes the GPUs the layout leaves (dp = GPUs /
// (tp*pp*cp)), and each step runs 4*pp micro-batches per pipeline, enough
// to fill a 1F1B pipeline.
type Playground struct {
	Model      string
	GPU        string
	GPUs       int
	Seq        int
	MicroBatch int
	ZeRO       int
	TP, PP, CP int
	Recompute  costmodel.Recompute
	Precision  costmodel.Precision
}

// DefaultPlayground is where the playground starts: Llama 3.1 70B on 64
// H100s with tensor parallelism in the node and ZeRO-1.
func DefaultPlayground() Playground {
	return Playground{Model: "llama3.1-70b", GPU: "h100-sxm", GPUs: 64, Seq: 4096, MicroBatch: 1,
		ZeRO: 1, TP: 8, PP: 1, CP: 1, Recompute: costmodel.Selective}
}

// Plan is the training plan of the setting, or an error naming what does
// not divide.
func (pg Playground) Plan() (costmodel.Plan, error) {
	model := pg.TP * pg.PP * pg.CP
	if model < 1 || pg.GPUs < 1 || pg.GPUs%model != 0 {
		return costmodel.Plan{}, fmt.Errorf("%d GPUs are not a multiple of tp*pp*cp = %d*%d*%d = %d", pg.GPUs, pg.TP, pg.PP, pg.CP, model)
	}
	dp := pg.GPUs / model
	return costmodel.Plan{TP: pg.TP, PP: pg.PP, CP: pg.CP, DP: dp, ZeRO: pg.ZeRO, SP: pg.TP > 1,
		Recompute: pg.Recompute, MicroBatch: pg.MicroBatch, GlobalBatch: pg.MicroBatch * dp * 4 * pg.PP,
		Seq: pg.Seq, Precision: pg.Precision}, nil
}

// Estimate runs the cost model on the setting.
func (pg Playground) Estimate() (*costmodel.Report, error) {
	m, err := costmodel.LookupModel(pg.Model)
	if err != nil {
		return nil, err
	}
	g, err := hardware.LookupGPU(pg.GPU)
	if err != nil {
		return nil, err
	}
	p, err := pg.Plan()
	if err != nil {
		return nil, err
	}
	c, err := hardware.ClusterForGPUs(g, pg.GPUs, 0)
	if err != nil {
		return nil, err
	}
	return costmodel.Estimate(m, c, p, costmodel.DefaultAssumptions())
}

// Render is the playground's output for the setting as HTML: a summary
// (fit, step time, throughput), the peak stage's inventory as a bar
// against the budget, the memory of that stage over one step, the step
// time by part, and the inventory table. A setting the model rejects
// renders as the error, never as a failure: a user moving controls meets
// invalid layouts all the time.
func (pg Playground) Render() string {
	r, err := pg.Estimate()
	if err != nil {
		return renderError(err)
	}
	bar, err := InventoryChart("Peak memory per GPU", InventoryBar{Label: r.PlanString, Memory: r.Memory})
	if err != nil {
		return renderError(err)
	}
	var b strings.Builder
	b.WriteString(summary(r))
	b.WriteString(`<div style="display:flex;flex-wrap:wrap">` + "<div>" + bar + "</div>")
	if tl, err := costmodel.StepTimeline(r.Plan, r.Stages[r.PeakStage]); err == nil {
		if svg, err := TimelineChart(fmt.Sprintf("Stage %d over one step", r.PeakStage), tl, r.Memory.Budget); err == nil {
			b.WriteString("<div>" + svg + "</div>")
		}
	}
	if svg, err := StepTimeChart("Step time", StepBar{Label: r.PlanString, Performance: r.Performance}); err == nil {
		b.WriteString("<div>" + svg + "</div>")
	}
	b.WriteString("</div>\n")
	b.WriteString(InventoryTable(r.Memory))
	return b.String()
}

// summary is the playground's first line: the setting, the peak memory
// against the budget, and the step time and throughput.
func summary(r *costmodel.Report) string {
	verdict := `<b class="fit" style="color:#070">fits</b>`
	if !r.Memory.Fits {
		verdict = `<b class="fit" style="color:#b00">does not fit</b>`
	}
	return fmt.Sprintf("<p>%s on %s, plan <code>%s</code>, %s, seq %d, %d micro-batches per step: peak %v on stage %d of %v budget: %s; "+
		"step %v, %.0f tokens/s per GPU</p>\n",
		html.EscapeString(r.Model), html.EscapeString(r.Cluster.String()), html.EscapeString(r.PlanString), r.Plan.Precision, r.Plan.Seq,
		r.MicroBatches, r.Memory.Total, r.PeakStage, r.Memory.Budget, verdict,
		r.Performance.StepTime, r.Performance.TokensPerSecondPerGPU)
}

func renderError(err error) string {
	return `<p class="error" style="color:#b00">` + html.EscapeString(err.Error()) + "</p>\n"
}
