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
//	estimate   itemized per-GPU memory of one plan, for training or serving;
//	           for training also its communication and step time
//	search     the best parallel plans on a GPU count, or the fewest GPUs
//	           that fit
//	serve      the fewest GPUs and the ranked layouts that serve a model to
//	           its users, with memory and speed
//	models     the model catalog (or pass a Hugging Face config.json path)
//	gpus       the GPU catalog, with a source for every figure
//	validate   predicted step times against the published measurements
//	playground the notebook playground as a local web page
//	notebook   "notebook install" registers the Planner (Go) Jupyter kernel
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
// After the memory, a training estimate lists every collective of one
// step on the slowest pipeline stage (bytes per GPU, link tier, time and
// the part not hidden behind compute) and the step time: compute,
// recompute, pipeline bubble, exposed communication per kind, optimizer,
// then tokens/s, model FLOP/s per GPU, MFU and HFU. Llama 3 70B with
// tensor parallelism inside each node, two pipeline stages and the
// distributed optimizer across nodes:
//
//	$ planner estimate --model llama3-70b --gpus 64 --tp 8 --pp 2 --sp --zero 1 --recompute selective --seq 8192 --gbs 128
//
// The flags --rank-order, --tp-comm-overlap, --overlap-grad-reduce,
// --overlap-param-gather, --overlap-p2p and the efficiency flags change the
// step-time assumptions; a GB200 NVL72 rack (--gpu gb200) keeps groups of
// up to 72 GPUs on NVLink.
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
// # Serve
//
// planner serve answers "on how many GPUs, in which layout, how fast?" for
// a model, a context length and a number of concurrent users. It finds
// the fewest GPUs whose weights and KV cache (every user at the full
// context, in paged blocks of --block-size tokens) fit 90% of HBM, and
// ranks the layouts on them: tensor parallelism inside the NVLink domain,
// dividing the attention heads; pipeline stages across nodes; replicas
// for the rest. With --gpus N it ranks the layouts on exactly N GPUs.
//
// For each layout it reports the weights' share of HBM, how many users of
// the context fit, the longest context that fits the users, and the speed
// from first principles: a decode step reads every GPU's weight shard and
// the live KV cache once (time per output token), a prefill computes the
// prompt's FLOPs (time to first token), plus the tensor-parallel
// all-reduces and pipeline hand-offs; and the batch at which decode turns
// compute-bound. The efficiencies are assumptions with cited defaults
// (--decode-hbm-efficiency, --prefill-flop-efficiency, --serve-link-efficiency, --allreduce-us,
// --network-us), printed with every answer.
//
// Llama 3.1 8B on one H100: the 19 GB plan of one 4,096-token
// conversation, and how many such users one GPU holds:
//
//	$ planner serve --model llama3.1-8b --context 4096 --users 1
//
// Llama 3 70B for 32 users of 8,192 tokens:
//
//	$ planner serve --model llama3-70b --context 8192 --users 32
//
// When the load does not fit one node (or the --gpus given), three answers
// stand side by side, each with its GPUs and speed: fewer bytes per
// parameter, more memory per GPU, or more GPUs. Llama 3.1 405B in bf16
// needs two nodes of H100s; fp8 fits eight, and so does bf16 on eight
// H200s or B200s:
//
//	$ planner serve --model llama3.1-405b --context 8192 --users 16
//
// The layouts on exactly eight GPUs, as Markdown (--json gives raw base
// units):
//
//	$ planner serve --model qwen3-30b-a3b --gpu h200 --gpus 8 --context 32768 --users 64 --kv-dtype fp8 --top 4 --markdown
//
// # Validate
//
// The step-time model against the 83 published measurements of
// costmodel/calibration/testdata/measured.csv: the fit of its three
// fitted parameters, every row's predicted and measured step time (or
// tokens/s per GPU, or layer time) with the relative error and the
// settings the source leaves unstated, the error per source, the memory
// of rows that ran out of it, and the rows that cannot be modeled with
// the reason. --csv reads another file with the same columns; --json
// prints all of it as JSON.
//
//	$ planner validate
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
// interleaving, ZeRO stage and recompute left to the search, under the
// asynchronous pipeline sends and the memory budget Meta's run implies
// (no activation checkpointing; Dubey et al. 2024, sec. 3.3.2):
//
//	$ planner search --model llama3-405b --gpus 16384 --tp 8 --pp 16 --cp 1 --mbs 1 --overlap-p2p --hbm-fraction 0.95 --top 5
//
// When nothing fits, the nearest misses, by how much they are over, and
// what would close the gap:
//
//	$ planner search --model llama3-70b --gpus 8 --seq 32768 --gbs 64
//
// Markdown for an architecture review, with ZeRO and recompute restricted:
//
//	$ planner search --model llama3-70b --gpus 64 --zero 1,3 --recompute selective,full --top 5 --markdown
//
// # Playground
//
// planner playground serves the playground of notebook 10 as a web page
// on this machine, with no Jupyter: controls for the model, the GPU and
// how many, sequence, micro-batch, ZeRO stage, tp, pp, cp, recompute and
// precision, and below them the fit, the peak GPU's inventory against its
// budget, that pipeline stage's memory over one step and the step time
// by part, redrawn when a control changes. The address holds the setting
// (for example /?model=llama3.1-8b&gpus=8&zero=3), so a link reopens it.
// It listens on a loopback address only (--addr, default
// 127.0.0.1:8080) and loads nothing from the network:
//
//	go run ./cmd/planner playground --addr 127.0.0.1:8080
//
// # Notebooks
//
// planner notebook install registers the Jupyter kernel "Planner (Go)"
// (name planner) that the teaching notebooks under notebooks/ name. It
// writes kernel.json and a start script into the kernels folder of
// --data-dir (default $JUPYTER_DATA_DIR or ~/.local/share/jupyter). The
// script runs GoNB (found on PATH or in $(go env GOPATH)/bin, or
// --gonb) with --go_work set to the planner checkout that holds the
// notebook, or else the one the install ran in (--root), so a notebook's
// first cell is already a lesson: its imports of the planner's packages
// resolve with no setup cell. scripts/install-notebook-tools.sh installs
// GoNB and runs it:
//
//	go run ./cmd/planner notebook install
package main
