package main

import (
	"flag"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/gpu-planner/planner/view"
)

// runPlayground serves the playground as a local web page: the notebook
// playground's controls and charts (package view) with no Jupyter. It
// listens on a loopback address only and loads nothing from the network;
// the page's address holds the setting, so a link reopens it.
func runPlayground(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("playground", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "loopback address and port to listen on (port 0 picks a free one)")
	if err := fs.Parse(args); err != nil {
		return badInput(err)
	}
	if err := loopbackOnly(*addr); err != nil {
		return badInput(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "playground: http://%s/?%s   (Ctrl-C stops it)\n", ln.Addr(), view.DefaultPlayground().Query().Encode())
	return http.Serve(ln, playgroundHandler())
}

// loopbackOnly refuses an address other machines could reach: the
// playground is a page for the person at this machine.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q: the playground listens on a loopback address only (127.0.0.1, ::1, localhost)", addr)
	}
	return nil
}

// playgroundHandler serves the page at "/" and, at "/render", the part of
// it that a control's change redraws. Both read the setting from the
// query; a bad query renders as its error with a 400 status.
func playgroundHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		pg, err := view.ParsePlayground(r.URL.Query())
		writePlayground(w, err, playgroundPage(pg, output(pg, err)))
	})
	mux.HandleFunc("GET /render", func(w http.ResponseWriter, r *http.Request) {
		pg, err := view.ParsePlayground(r.URL.Query())
		writePlayground(w, err, output(pg, err))
	})
	return mux
}

func writePlayground(w http.ResponseWriter, err error, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
	}
	io.WriteString(w, body)
}

// output is what the page shows below the controls.
func output(pg view.Playground, err error) string {
	if err != nil {
		return `<p class="error" style="color:#b00">` + html.EscapeString(err.Error()) + "</p>\n"
	}
	return pg.Render()
}

// playgroundPage is the whole page: a form of the controls, with pg's
// options selected, and out. Without JavaScript the form's button
// reloads the page; with it, a change fetches /render, swaps the output
// and puts the setting in the address bar.
func playgroundPage(pg view.Playground, out string) string {
	var b strings.Builder
	b.WriteString(pageHead)
	b.WriteString(`<form id="controls" action="/" method="get">` + "\n")
	for _, c := range view.PlaygroundControls() {
		fmt.Fprintf(&b, `<label>%s <select name=%q>`, html.EscapeString(c.Label), c.Key)
		for _, o := range c.Options {
			sel := ""
			if o == c.Value(pg) {
				sel = " selected"
			}
			fmt.Fprintf(&b, `<option%s>%s</option>`, sel, html.EscapeString(o))
		}
		b.WriteString("</select></label>\n")
	}
	b.WriteString(`<noscript><button>update</button></noscript></form>` + "\n")
	b.WriteString(`<div id="out">` + out + "</div>\n" + pageScript + "</body></html>\n")
	return b.String()
}

const pageHead = `<!doctype html>
<html><head><meta charset="utf-8"><title>planner playground</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em}
form{display:flex;flex-wrap:wrap;gap:.4em 1.2em;margin-bottom:1em}
label{white-space:nowrap}
table.planner{border-collapse:collapse}
table.planner td,table.planner th{padding:2px 8px;border-bottom:1px solid #ddd}
</style></head><body>
<h1 style="font-size:1.3em">planner playground</h1>
`

// pageScript redraws the output on every change and keeps the setting in
// the address, so reload, back and links keep it.
const pageScript = `<script>
const form = document.getElementById("controls");
form.addEventListener("change", async () => {
  const q = new URLSearchParams(new FormData(form)).toString();
  history.replaceState(null, "", "/?" + q);
  const r = await fetch("/render?" + q);
  document.getElementById("out").innerHTML = await r.text();
});
</script>
`
