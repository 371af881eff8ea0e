package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-planner/planner/view"
)

// get fetches path from the playground handler and returns the status
// and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var svgs = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// TestPlaygroundPage: the setting in the URL selects the controls and
// changes the charts; /render gives the same output as the page; a bad
// query is a 400 that names the problem; nothing loads from the network.
func TestPlaygroundPage(t *testing.T) {
	srv := httptest.NewServer(playgroundHandler())
	defer srv.Close()
	code, page := get(t, srv, "/")
	if code != http.StatusOK || !strings.Contains(page, `<option selected>llama3.1-70b</option>`) || !strings.Contains(page, "fits") {
		t.Fatalf("default page: %d %.400s", code, page)
	}
	if n := len(svgs.FindAllString(page, -1)); n != 3 {
		t.Errorf("default page has %d charts, want 3 (inventory, timeline, step time)", n)
	}
	code, zero0 := get(t, srv, "/?zero=0&gpus=8&recompute=none")
	if code != http.StatusOK || !strings.Contains(zero0, "does not fit") || !strings.Contains(zero0, `<option selected>none</option>`) {
		t.Errorf("zero=0 on 8 GPUs: %d, no 'does not fit' or selected option", code)
	}
	if svgs.FindString(zero0) == svgs.FindString(page) {
		t.Error("changing the URL's setting left the inventory chart as it was")
	}
	pg := view.DefaultPlayground()
	pg.ZeRO, pg.GPUs, pg.Recompute = 0, 8, 0
	if _, frag := get(t, srv, "/render?"+pg.Query().Encode()); frag != pg.Render() || !strings.Contains(zero0, frag) {
		t.Error("/render differs from the page's output for the same setting")
	}
	code, bad := get(t, srv, "/?tp=3")
	if code != http.StatusBadRequest || !strings.Contains(bad, `tp=&#34;3&#34; is not an option`) {
		t.Errorf("tp=3: %d %.300s", code, bad)
	}
	if remote := regexp.MustCompile(`(src|href)="(https?:)?//`).FindString(page); remote != "" {
		t.Errorf("the page loads %s from the network", remote)
	}
}

func TestPlaygroundLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "example.com:80", "nonsense"} {
		var out, errb bytes.Buffer
		if code := run([]string{"playground", "--addr", addr}, &out, &errb); code != exitUsage {
			t.Errorf("--addr %s: exit %d, want %d (%s)", addr, code, exitUsage, errb.String())
		}
	}
}
