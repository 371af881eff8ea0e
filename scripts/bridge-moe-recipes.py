#!/usr/bin/env python3
"""Prints what Megatron-Bridge's MoE performance recipes set, release by release.

costmodel/calibration/bridgemoe.go prices each Megatron-Bridge MoE row with
the recipe of its own NeMo container; this script reads those recipes from a
clone of NVIDIA-NeMo/Megatron-Bridge at the commits bridgemoe.go names
(bridgeReleaseCommits) and prints, for each config of the four catalog MoE
models, the settings the table holds: moe_a2a_overlap, the dispatcher, the
CUDA graph implementation and scope, recompute_modules, FP8 attention and the
fused grouped MLP. It covers the releases whose recipes are Python workload
base configs (25.11 to 26.06); 25.09's YAML perf matrices and the per-GPU perf
recipes of 26.06.01 and 26.08 are read by hand (bridgemoe.go says which).

Usage: scripts/bridge-moe-recipes.py PATH-TO-MEGATRON-BRIDGE-CLONE
"""

import subprocess
import sys
import types

RELEASES = {
    "25.11": "97ad8cc6f", "26.02": "c0b9a0003", "26.02.01": "cfeddcd94",
    "26.04": "74695a06d", "26.04.01": "17a381f95", "26.06": "63b08b397",
}
FILES = [
    "scripts/performance/configs/qwen/qwen3_workload_base_configs.py",
    "scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py",
    "scripts/performance/configs/deepseek/deepseek_workload_base_configs.py",
]
MODELS = ("QWEN3_30B_A3B", "QWEN3_235B_A22B", "GPT_OSS_120B", "DEEPSEEK_V3")


class Config:
    """Stands in for utils.utils.WorkloadBaseConfig: the keyword settings."""

    def __init__(self, **settings):
        self.settings = dict(settings)


def replace(config, **settings):
    """dataclasses.replace on a Config."""
    merged = dict(config.settings)
    merged.update(settings)
    return Config(**merged)


def load(repo, commit, path):
    """The configs one workload base config file defines at commit ({} when
    the file is not there)."""
    src = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True)
    if src.returncode != 0:
        return {}
    utils = types.ModuleType("utils.utils")
    utils.WorkloadBaseConfig = Config
    sys.modules["utils"] = types.ModuleType("utils")
    sys.modules["utils"].utils = utils
    sys.modules["utils.utils"] = utils
    # The file's own "replace" import is dropped; ours works on Config.
    scope = {"replace": replace}
    exec(compile(src.stdout.decode().replace("from dataclasses import replace", ""), path, "exec"), scope)
    return {k: v.settings for k, v in scope.items() if isinstance(v, Config) and "PRETRAIN" in k}


def summary(c):
    """The settings bridgemoe.go's table holds."""
    graphs = c.get("cuda_graph_impl", "none")
    if c.get("cuda_graph_scope"):
        graphs += " " + ",".join(c["cuda_graph_scope"])
    return "overlap=%s dispatcher=%s graphs=%s recompute=%s fp8_attention=%s fused_mlp=%s layout=%s" % (
        c.get("moe_a2a_overlap", False), c.get("moe_flex_dispatcher_backend", "alltoall"), graphs,
        ",".join(c["recompute_modules"]) if "recompute_modules" in c else "-",
        c.get("fp8_dot_product_attention", False), c.get("cutedsl_fused_grouped_mlp", False),
        "gpus %s pp %s vpp %s ep %s mbs %s" % (c.get("num_gpus"), c.get("pipeline_model_parallel_size", 1),
                                              c.get("virtual_pipeline_model_parallel_size"),
                                              c.get("expert_model_parallel_size"), c.get("micro_batch_size", 1)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    repo = sys.argv[1]
    for release, commit in RELEASES.items():
        for path in FILES:
            configs = load(repo, commit, path)
            for name in sorted(configs):
                if name.startswith(MODELS):
                    print(release, commit, name, summary(configs[name]))


if __name__ == "__main__":
    main()
