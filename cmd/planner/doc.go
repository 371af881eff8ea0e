// Command planner answers the questions asked before a training or
// serving job starts: will this model fit, on how many GPUs, with which
// parallel layout.
//
// Usage:
//
//	planner <command> [flags]
//
// The commands are:
//
//	estimate   itemized per-GPU memory of one plan, for training or serving
//	search     the best parallel plans on a GPU count, or the fewest GPUs that fit
//	models     the model catalog (or pass a Hugging Face config.json path)
//	gpus       the GPU catalog, with a source for every figure
//
// Every command takes -h for its flags and --json for machine output in
// raw base units (bytes as integers). Bad input exits with status 2 and a
// message that names the bad value and what would be valid.
//
// # Estimate
//
// The memory of one training plan: Llama 3 70B on 64 H100s with ZeRO-3
// and full recompute, at 8,192 tokens per sequence:
//
//	$ planner estimate --model llama3-70b --gpus 64 --zero 3 --recompute full --seq 8192
//
// Llama 3 405B in Meta's layout (tp 8 in a node, pp 16 across nodes,
// sequence parallelism); the first and last stages get one layer fewer,
// and --stages prints every stage:
//
//	$ planner estimate --model llama3-405b --gpus 16384 --tp 8 --pp 16 --sp --zero 1 --recompute full --seq 8192 --gbs 2048 --stages
//
// A plan that does not fit names its largest lines and the changes that
// would shrink it, each with the memory it leads to:
//
//	$ planner estimate --model llama3-70b --gpus 8 --tp 8 --sp --seq 8192
//
// Serving: Llama 3.1 8B in bf16 on one H100 with one 4,096-token
// conversation, and how many such users fit:
//
//	$ planner estimate --mode serve --model llama3.1-8b --gpus 1 --context 4096 --users 1
//
// Llama 3.1 405B on eight H100s in fp8:
//
//	$ planner estimate --mode serve --model llama3.1-405b --gpus 8 --tp 8 --weights-dtype fp8 --context 8192 --users 16
//
// A model can be a Hugging Face config.json and a GPU a JSON file whose
// keys carry their units (planner gpus prints the keys):
//
//	$ planner estimate --model costmodel/hfconfigs/Qwen__Qwen3-32B.json --gpu b200 --gpus 8 --zero 3 --recompute selective
//
// # Catalogs
//
//	$ planner models
//	$ planner gpus --sources
//
// # Search
//
// Search enumerates parallel plans: tp (dividing the attention and KV
// heads, up to the NVLink domain unless listed beyond it), pp (even and
// balanced splits, and lighter first and last stages with --mid-extra
// and --end-shift),
// virtual stages, cp, ZeRO 0-3, recompute, sequence parallelism and
// micro-batch sizes, with dp = GPUs / (tp*pp*cp) and the global batch
// fixed (--gbs sequences or --gbs-tokens; by default Llama 3's 16M
// tokens), so gradient accumulation follows. A plan fits when its most
// loaded pipeline stage stays within the budget (90% of HBM,
// --hbm-fraction). Each axis flag takes a comma-separated list that pins
// or restricts it. The output ranks the plans, says in numbers why the
// first beats the second, and counts every candidate by the reason it
// was rejected; --json, --csv and --markdown carry the same results.
//
// The best plans for Llama 3 405B on 128 H100s, by throughput:
//
//	$ planner search --model llama3-405b --gpus 128
//
// Without a GPU count: the fewest whole nodes that hold it; --max-gpus
// searches every count up to it and prints the Pareto frontier of GPU
// count against throughput:
//
//	$ planner search --model llama3-405b --max-gpus 512 --top 3
//
// Meta's layout on 16,384 H100s (tp 8, pp 16, cp 1, so dp 128), with the
// ZeRO stage and recompute left to the search:
//
//	$ planner search --model llama3-405b --gpus 16384 --tp 8 --pp 16 --cp 1 --mbs 1 --top 5
//
// When nothing fits, the nearest misses, by how much they are over, and
// what would close the gap:
//
//	$ planner search --model llama3-70b --gpus 8 --seq 32768 --gbs 64
//
// Markdown for an architecture review, with ZeRO and recompute restricted:
//
//	$ planner search --model llama3-70b --gpus 64 --zero 1,3 --recompute selective,full --top 5 --markdown
package main
