package costmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBusiestRankExperts: the closed form matches a simulation of the
// ranks' active experts, reduces to the mean for one rank, is bounded by
// n and grows with the ranks; DeepSeek-V3 at 4 tokens over ep 8 (the
// doc comment's example) averages 3.8 active experts a rank and 6.56
// on the busiest.
func TestBusiestRankExperts(t *testing.T) {
	if got := busiestRankExperts(32, 0.25, 1); !within(got, 8, 1e-12) {
		t.Errorf("one rank: %g, want the mean 8", got)
	}
	if busiestRankExperts(32, 0, 8) != 0 || busiestRankExperts(32, 1, 8) != 32 || busiestRankExperts(0, 0.5, 8) != 0 {
		t.Error("no expert active, every expert active or no experts: want 0, 32, 0")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n, ranks int
		q        float64
	}{{32, 8, 0.119}, {32, 4, 0.6}, {64, 2, 0.03}, {16, 16, 0.9}} {
		const draws = 50000
		var sum float64
		for range draws {
			busiest := 0
			for range c.ranks {
				x := 0
				for range c.n {
					if rng.Float64() < c.q {
						x++
					}
				}
				busiest = max(busiest, x)
			}
			sum += float64(busiest)
		}
		sim, got := sum/draws, busiestRankExperts(c.n, c.q, c.ranks)
		if !within(got, sim, 0.005) {
			t.Errorf("n %d, q %g, %d ranks: %g, simulated %g", c.n, c.q, c.ranks, got, sim)
		}
		if got < float64(c.n)*c.q || got > float64(c.n) || got < busiestRankExperts(c.n, c.q, c.ranks/2) {
			t.Errorf("n %d, q %g, %d ranks: %g is below the mean, above n or below half the ranks'", c.n, c.q, c.ranks, got)
		}
	}
	q := 1 - math.Pow(1-8.0/256, 4)
	if mean, busiest := 32*q, busiestRankExperts(32, q, 8); !within(mean, 3.8, 0.01) || busiest < 6.5 || busiest > 6.6 {
		t.Errorf("DeepSeek-V3, 4 tokens, ep 8: mean %.2f, busiest %.2f; want 3.8 and 6.56", mean, busiest)
	}
}
