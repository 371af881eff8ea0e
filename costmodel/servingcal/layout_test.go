package servingcal

import "testing"

// TestEngineLayout: the rows that carry the engine's tp and ep in
// moe_tp and moe_ep are read as the engine ran them; the others as
// recorded. Ids and fields from measured-serving.csv.
func TestEngineLayout(t *testing.T) {
	for _, c := range []struct {
		p      Point
		want   Layout
		reread bool
	}{
		// "tp8_ep8", recorded tp 64 = moe_tp 8 x moe_ep 8: 8 GPUs.
		{Point{ID: "2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_agg_1024x1024_c4_tp8_ep8_954", TP: 64, PP: 1, AttentionDP: 1, ExpertTP: 8, ExpertEP: 8},
			Layout{TP: 8, PP: 1, DP: 1, EP: 8}, true},
		// the same with attention dp: 8 dp ranks of tp 1.
		{Point{ID: "2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_ep8_937", TP: 1, PP: 1, AttentionDP: 64, ExpertTP: 8, ExpertEP: 8},
			Layout{TP: 1, PP: 1, DP: 8, EP: 8}, true},
		// no layout in the id: moe_tp 4 x moe_ep 4 = the recorded 16.
		{Point{ID: "dsr1_b300_sglang_fp4_agg_1024x1024_c4_cfg717", TP: 16, PP: 1, AttentionDP: 1, ExpertTP: 4, ExpertEP: 4},
			Layout{TP: 4, PP: 1, DP: 1, EP: 4}, true},
		// "tp4_epnone", recorded tp 4 with moe_tp 2 x moe_ep 2: as recorded.
		{Point{ID: "qwen_qwen3_235b_a22b_fp8_qwen_qwen3_235b_a22b_fp8_h100_sxm_trtllm_agg_128x128_c16_tp4_epnone_16", TP: 4, PP: 1, AttentionDP: 1, ExpertTP: 2, ExpertEP: 2},
			Layout{TP: 4, PP: 1, DP: 1, EP: 2}, false},
		// "tp8_0_ep8_0" with dp 8 and moe_ep 8: 8 GPUs as recorded.
		{Point{ID: "2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_agg_1024x8192_c256_tp8_0_ep8_0_1238", TP: 1, PP: 1, AttentionDP: 8, ExpertTP: 1, ExpertEP: 8},
			Layout{TP: 1, PP: 1, DP: 8, EP: 8}, false},
		// a dense row.
		{Point{ID: "dsr1_b200_trtllm_fp4_agg_1024x1024_c128_cfg191x", TP: 4, PP: 1, AttentionDP: 1, ExpertTP: 1, ExpertEP: 1},
			Layout{TP: 4, PP: 1, DP: 1, EP: 1}, false},
	} {
		got, reread := engineLayout(c.p)
		if got != c.want || reread != c.reread {
			t.Errorf("%s: layout %v (reread %v), want %v (%v)", c.p.ID, got, reread, c.want, c.reread)
		}
	}
}

// TestHarness: the gap-analysis sweeps' ids name the sweep harness,
// the others InferenceMAX's.
func TestHarness(t *testing.T) {
	for id, want := range map[string]string{
		"meta_llama_llama_3_1_8b_instruct_meta_llama_llama_3_1_8b_instruct_h100_sxm_trtllm_agg_1024x128_c8_tp1_epnone_1": HarnessSweep,
		"dsr1_b200_sglang_fp4_agg_1024x1024_c4_cfg99":                                                                    HarnessInferenceMAX,
		"2026_04_06_llama_3_1_70b_h100_sxm_vllm_fp8_agg_1024x1024_c4_tp4_ep1_653":                                        HarnessInferenceMAX,
	} {
		if got := harness(id); got != want {
			t.Errorf("harness(%s) = %s, want %s", id, got, want)
		}
	}
}
