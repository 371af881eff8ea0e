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
//	models     the model catalog (or pass a config.json path or a Hugging Face id)
//	gpus       the GPU catalog, with a source for every figure
//	validate   predicted step times against the published measurements
//	explain-plan each part of a plan string, spelled out
//	report     a self-contained architecture review (HTML or Markdown)
//	export     a plan as a framework's launch configuration
//	playground the notebook playground as a local web page
//	notebook   "notebook install" registers the Planner (Go) Jupyter kernel
//
// Every command takes -h for its flags and --json for machine output in
// raw base units (bytes as integers).
//
// # Exit status
//
//	0  an answer (an estimate whose plan does not fit is still an answer)
//	1  no answer: a search or serve that finds nothing that fits (its
//	   output still shows the nearest misses and what would change
//	   that), or a failure while running
//	2  bad input, with one line naming the flag, the value and what
//	   would be valid
//	3  a bug in the planner: a panic, printed with its stack
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
// --recompute takes none, selective (the attention core, Megatron's
// core_attn), full (every layer checkpointed) or opsac: torchtitan's
// op-level selective checkpointing, which keeps each layer's input, the
// outputs of every other matrix multiply, of the fused attention and of
// the sequence-parallel reduce-scatters, and recomputes the rest; the
// inventory names each saved tensor and the step time prices exactly the
// recomputed kernels. The deepspeed and megatron-deepspeed presets add
// the fp32 gradient partition that DeepSpeed ZeRO-1/2's optimizer step
// allocates.
//
// --recompute selective --recompute-modules takes Megatron-Core's
// recompute_modules (core_attn, moe_act, layernorm, mla_up_proj, mlp,
// moe, shared_experts; default core_attn): each module's saved tensors
// leave the inventory, whose layer line names them, and its forward runs
// again in the backward pass. The plan string reads
// selective[mla_up_proj,mlp], and export writes the modules as
// --recompute-modules or model.recompute_modules. DeepSeek-V3 on GB200
// as Megatron-Bridge's recipe recomputes it, 40 GB less per GPU than
// without recompute:
//
//	$ planner estimate --model deepseek-v3 --gpu gb200 --gpus 256 --gpus-per-node 4 --pp 4 --vpp 4 --ep 64 --zero 1 --recompute selective --recompute-modules mla_up_proj --precision mxfp8 --gbs 4096 --framework nemo
//
// --recompute full --recompute-num-layers N --recompute-method block|uniform
// is Megatron-LM's partial full recompute (transformer_block.py,
// _checkpointed_forward): block checkpoints only the first N layers of
// each pipeline stage (each virtual stage with --vpp), the others keep
// their activations and are not recomputed; uniform (the default
// method) checkpoints groups of N layers, one input per group, holding
// a whole group's tensors while it is recomputed. N runs from 1 to the
// layers of a stage; the plan string reads full[block5] or
// full[uniform2], plain full is uniform groups of one layer, and export
// writes --recompute-method and --recompute-num-layers (Megatron-Bridge:
// model.recompute_method, model.recompute_num_layers). An estimate that
// does not fit lists the fewest block layers that make it fit among its
// levers.
//
// The flags --rank-order, --tp-comm-overlap, --overlap-grad-reduce,
// --overlap-param-gather, --overlap-p2p and the efficiency flags change the
// step-time assumptions; a GB200 NVL72 rack (--gpu gb200) keeps groups of
// up to 72 GPUs on NVLink. --framework NAME (megatron, nemo, torchtitan,
// deepspeed, or a historical preset of the calibration) sets the
// attention kernel, fused or eager kernels, the overlaps, the gradient
// dtype and sequence parallelism in one word, each still overridden by
// its own flag, and prints every setting it applied with its source (also
// for `planner search`). --precision names a recipe: bf16, fp16, fp32,
// fp8 (Transformer Engine's delayed scaling), fp8-cs, fp8-rowwise,
// fp8-rowwise-gw-hp (torchao's rowwise with bf16 weight gradients),
// fp8-blockwise, mxfp8 or nvfp4; the low-precision weight copies are a
// memory line. Every estimate and search prints on its accuracy line how
// many calibration rows back its GPU and format, and their error, or that
// it extrapolates.
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
// The step-time model against the 83 + 239 published measurements of
// costmodel/calibration/testdata/measured.csv and measured-modern.csv:
// the fit of its three fitted parameters, every row's predicted and
// measured step time (or tokens/s per GPU, or layer time) with the
// relative error and the settings the source leaves unstated, the error
// per source and per source x GPU generation x format (median, signed
// median, 90th percentile), the leave-one-source-out error, each
// accuracy target with met or not met, the memory of rows that ran out
// of it, and the rows that cannot be modeled with the reason. --csv reads
// another file with the same columns; --json prints all of it as JSON.
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
// Text output keeps to 100 columns where it can: prose wraps, and the
// plan table shows the GPUs and exposed-communication columns only with
// --wide (estimate, serve and validate take --wide too).
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
// what would close the gap; then, as a fine-tune, each alternative
// searched on the same GPUs (8-bit Adam, optimizer or parameter offload
// to the CPU, LoRA, QLoRA) with its best plan or its nearest miss, and
// the answer they add up to; the command exits 1 (nothing fits as asked):
//
//	$ planner search --model llama3-70b --gpus 8 --seq 32768 --gbs 64
//
// Markdown for an architecture review, with ZeRO and recompute restricted:
//
//	$ planner search --model llama3-70b --gpus 64 --zero 1,3 --recompute selective,full --top 5 --markdown
//
// # Fine-tuning and offload
//
// --task full, lora or qlora says what trains (pretrain, the default, and
// full train every weight); --lora-rank (16), --lora-targets (q, k, v, o,
// gate, up, down, or qkv: one adapter on the fused QKV projection, as
// Megatron's linear_qkv) and --base-dtype (bf16 or fp8 for lora; qlora is NF4
// with double-quantized scales, 4.127 bits per weight) describe the
// adapters and the frozen base. --offload optimizer (ZeRO-Offload, zero
// 1 to 3) or params (ZeRO-Infinity, zero 3) keeps model states in host
// memory, checked against 80% of the host DRAM per GPU of the server the
// GPU sits in, and the step time adds what the host transfers and the
// CPU optimizer step leave exposed. --offload-activations N copies the
// saved activations of the first N layers of each stage to host memory
// after their forward and back before their backward (Megatron-Core's
// cpu_offloading_num_layers, fewer than the stage's layers, with
// --recompute none): the stage keeps one layer in transfer, the host
// budget takes the rest, and the step adds the copies that outlast the
// next layer's forward or backward on the host link:
//
//	$ planner estimate --model llama3-8b --gpus 8 --zero 1 --offload-activations 16 --seq 8192
//
// --packed-sample-tokens N (estimate and search) prices sequences packed
// from short fine-tuning samples, whose fused attention runs within each
// sample (Transformer Engine's THD layout, cu_seqlens): N is the samples'
// length-weighted mean length E[len^2]/E[len], at most --seq, and the
// plan line names it. SQuAD in NeMo's SFT format measures 196 tokens
// under Llama 2's tokenizer.
//
// Can Llama 3 70B be fine-tuned on one H100 server? Not with every weight
// and Adam on the GPUs; yes with the optimizer states offloaded (also
// quantised), or with LoRA or QLoRA, each with its best layout:
//
//	$ planner search --model llama3-70b --gpus 8
//
// QLoRA searched directly, with a fine-tuning batch:
//
//	$ planner search --model llama3-70b --gpus 8 --task qlora --seq 4096 --gbs 64 --top 3
//
// The inventory of one QLoRA plan: the NF4 base, the adapters' states,
// the dequantized layer; and of a full fine-tune with the optimizer
// offloaded, with its host memory and the exposed offload time:
//
//	$ planner estimate --model llama3-70b --gpus 8 --zero 3 --task qlora --recompute full --seq 4096 --gbs 64
//	$ planner estimate --model llama3-70b --gpus 8 --zero 3 --offload optimizer --recompute full --seq 8192 --gbs 64
//
// # Reading a plan string
//
// Every plan prints as one string: tp<T>-pp<P>[v<V>][<first>,<last>]-cp<C>-dp<D>-zero<Z>[-sp]-<recompute>-mb<M>[-gpipe],
// the tensor, pipeline (with virtual stages and the layers of the first
// and last stage when they differ), context and data parallel degrees,
// the ZeRO stage, sequence parallelism, the recompute policy and the
// micro-batch size. explain-plan spells one out:
//
//	$ planner explain-plan tp8-pp16v2[7,7]-cp1-dp128-zero1-sp-selective-mb1
//
// # Whole run
//
// --tokens gives the run's token budget (15e12 or 15T) to search and
// estimate: each plan gets its time to train (tokens over tokens per
// second, steady state), its GPU-hours, with --gpu-hour-price (US
// dollars) its cost, and from the GPU's TDP its energy, with the power
// utilization and PUE it assumes (--power-utilization, --pue) printed
// beside it:
//
//	$ planner search --model llama3-405b --gpus 1024 --tokens 15e12 --gpu-hour-price 2.5 --top 3
//
// Under --deadline (90d, 12w, 2000h) a search without --gpus searches
// every count and picks, in --rank-by order (throughput, cost or time),
// the first plan that finishes in time:
//
//	$ planner search --model llama3-70b --tokens 2T --deadline 60d --max-gpus 512 --rank-by cost --gpu-hour-price 2 --top 3
//
// # Sensitivity
//
// --sensitivity re-runs the search with the network 2x slower, the GEMM
// efficiency 10% lower, the sequence doubled (at the same tokens per
// step), the global batch halved and the HBM budget at 85% and 95%, and
// says for each whether the winner stays the winner, how its step time
// and tokens/s move, and which plan wins instead:
//
//	$ planner search --model llama3-405b --gpus 1024 --top 3 --sensitivity
//
// # Export
//
// planner export writes a plan, as search prints it, as a framework's
// launch configuration: Megatron-LM arguments (--to megatron), a
// torchtitan TOML job config (torchtitan), Megatron-Bridge recipe
// overrides (nemo) or a DeepSpeed JSON config (deepspeed), with the
// model, batch, recompute, sharding and overlap settings the estimate
// assumed. Every flag and key is one the framework defines at a pinned
// commit (launch/testdata). A plan a framework cannot express exits 2 and
// says why, instead of writing a config that would run something else:
//
//	$ planner export --to megatron tp8-pp8v4[15,15]-cp2-dp8-zero1-sp-none-mb1 --model llama3-405b
//	$ planner export --to torchtitan tp8-pp4[19,19]-cp2-dp2-zero3-sp-full-mb1 --model llama3-70b --gbs 256
//
// search --export megatron,nemo appends the winner's launch configs.
//
// # Report
//
// planner report takes the flags of search and writes a review document
// to decide from: the question, the model, cluster and assumptions, the
// top plans with every pipeline stage's memory, the step-time breakdown
// and the exposed communication by link tier, the Pareto frontier of GPUs
// against throughput (and time to train with --tokens), the nearest
// misses on half the GPUs with their levers, the sensitivity table, the
// calibration rows of planner validate on this GPU and format (or
// "extrapolated"), the whole run, and the launch configs of the winner
// (--export picks the frameworks; all four by default). The HTML
// (--format html, the default) is one self-contained file with inline SVG
// charts; --out names it:
//
//	$ planner report --model llama3-405b --gpus 128 --top 5 --format markdown
//
// # Serve under load
//
// Given the request shape (--input-tokens, --output-tokens) and the load
// (--concurrency requests in flight, or --rate requests per second, the
// concurrency then following by Little's law), planner serve models an
// engine's continuous batching in steady state: each decode step reads
// the weights and every live sequence's KV cache (input + output/2
// tokens on average) once, prefills enter whole or in chunks
// (--chunked-prefill, the prefill tokens one step admits) that lengthen
// the steps they join, TTFT is the engine's request overhead plus the
// wait for a KV slot, the wait behind other prefills, the step under
// way and the prefill's own steps, and TPOT is the mean step a decoding
// request sees. A finite closed-loop benchmark (--rounds N: each of the
// --concurrency clients sends N requests, the first all at once) adds
// its opening burst, those requests waiting for the prefills of the
// ones before them. --engine vllm|sglang|trtllm picks a preset (step and
// request overheads fitted on measured-serving.csv, KV block, prefill
// budget, mixed prefill and decode steps, CUDA graphs, memory share,
// admission), every field printed and overridable (--step-overhead-ms,
// --request-overhead-ms, --memory-fraction, --block-size); --frontend
// dynamo puts NVIDIA Dynamo's front end before the engine, adding its
// fitted request overhead. TensorRT-LLM's
// waiting rules hold new prompts back while decodes run, adding their
// wait to TTFT: --batch-wait-iters N (with --batch-wait-token-ratio R:
// until the step's tokens reach R of the prefill budget) and, with
// attention data parallelism, --adp-balance-iters N (until every rank
// has a prompt); SGLang's --recv-interval N takes new requests in every
// N decode steps; --decode-only-graphs keeps CUDA graphs to the steps
// that only decode (vLLM's FULL_DECODE_ONLY; SGLang's and TensorRT-LLM's default), a step
// with a prefill chunk paying its launches; --mixed-prefill runs prefill
// chunks in the decodes' steps (SGLang's --enable-mixed-chunk; vLLM's
// and TensorRT-LLM's default). With --ttft and --tpot it finds, for
// every layout (--tp and --pp pin it; tensor parallelism reaches the
// NVLink domain, 72 on GB200 NVL72), the fewest replicas that meet both
// targets at the load, and ranks them by GPU-seconds per output token.
// --users and --context are aliases of --concurrency and of input +
// output. For mixture-of-experts models --dp-attention N replicates the
// attention over N data-parallel ranks of every replica, each serving its
// own requests from its own KV cache, and --ep N splits the routed
// experts over N ranks; a replica then spans tp x pp x dp GPUs and each
// MoE layer of a step pays the dispatch and combine all-to-alls. With
// neither flag (nor --tp or --pp) the search also tries tp 1 with dp = ep
// = 2, 4, 8, ... inside the NVLink domain for an MoE model.
//
// Llama 3.1 70B on H100s at 10 requests/s of 8,192-token prompts and
// 1,024-token answers, within a 2 s TTFT and a 40 ms TPOT:
//
//	$ planner serve --model llama3.1-70b --gpu h100 --input-tokens 8192 --output-tokens 1024 --ttft 2s --tpot 40ms --rate 10
//
// One pinned TensorRT-LLM layout in fp8 under 64 requests in flight:
//
//	$ planner serve --model llama3.1-70b --gpu h200 --engine trtllm --weights-dtype fp8 --kv-dtype fp8 --tp 4 --input-tokens 1024 --output-tokens 1024 --concurrency 64
//
// DeepSeek-V3 in fp8 on one H200 server, DeepSeek-style: attention on 8
// data-parallel ranks, the experts over 8 expert-parallel ranks:
//
//	$ planner serve --model deepseek-v3 --gpu h200 --engine trtllm --weights-dtype fp8 --tp 1 --dp-attention 8 --ep 8 --input-tokens 1024 --output-tokens 1024 --concurrency 256
//
// The serving model against the 821 measured points of
// costmodel/servingcal/testdata/measured-serving.csv: the fitted
// parameters, the error per engine and GPU generation and overall, and
// every row (--leave-one-engine-out adds the refits without each engine,
// scored with its step and request overheads the others' mean):
//
//	$ planner validate --serving --top 10
//
// With --disaggregated the same question is asked of separate prefill
// workers and decode workers: prompts run alone on the prefill pool, the
// prompt's KV cache moves to a decode worker (over NVLink when both
// pools fit one scale-up domain, else the network), and the decode pool
// runs decodes only. The search pairs every prefill layout with every
// decode layout (--prefill-tp, --prefill-pp, --decode-tp and --decode-pp
// pin them; --tp and --pp pin both), takes the fewest decode workers
// that meet --tpot and the fewest prefill workers that meet --ttft, and
// sets the aggregated answer beside it. The disaggregated model has no
// calibration rows of its own: its kernels and per-step overheads are
// the aggregated model's:
//
//	$ planner serve --model llama3.1-70b --gpu h100 --input-tokens 8192 --output-tokens 1024 --ttft 2s --tpot 40ms --rate 10 --disaggregated
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
