package efficiency

import "testing"

var sink float64

// BenchmarkGEMMTime is one Time call on a Llama-70B MLP shape (H100 BF16).
func BenchmarkGEMMTime(b *testing.B) {
	c, _, err := GEMMFor(lookup(b, "h100-sxm"), BF16)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sink += c.Time(4096+float64(i&7), 28672, 8192)
	}
}

// BenchmarkAttentionForward is one causal Forward call (H100 BF16,
// 8 sequences x 64 heads of 8k tokens).
func BenchmarkAttentionForward(b *testing.B) {
	a, _, err := AttentionFor(lookup(b, "h100-sxm"), BF16)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sink += a.Forward(512, 8192+float64(i&7), 8192, 128, 128, true)
	}
}
