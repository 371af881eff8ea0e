#!/usr/bin/env python3
"""Extract the flag and key names that launch-config exporters may write.

Reads a git mirror at a commit (HEAD by default) without importing its
code (ast only) and prints one name a line after a header naming the
repository, commit and path.

  usage: framework_names.py KIND MIRROR OWNER/NAME [COMMIT]
         framework_names.py bridge MIRROR OWNER/NAME COMMIT MEGATRON_MIRROR SECTION=CLASS...


  megatron  REPO   flags of megatron/training/arguments.py: every literal
                   '--flag' and the flags ArgumentGroupFactory derives from
                   dataclass fields (--field-name; --no-/--disable- for
                   bool fields that default to True; argparse_meta names).
  torchtitan REPO  section.key of the JobConfig dataclasses
                   (torchtitan/config/job_config.py).
  deepspeed REPO   the JSON keys of the DeepSpeed config: top-level
                   constants and the ZeRO section's pydantic fields and
                   aliases.
  bridge REPO      section.field of Megatron-Bridge's ConfigContainer
                   sections, the dataclass bases followed into Megatron-LM
                   at the commit Bridge pins as its submodule.
"""
import ast
import subprocess
import sys


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


REV = "HEAD"
USED = []  # files whose dataclasses the names came from


def show(repo, path):
    return git(repo, "show", REV + ":" + path)


def header(repo, paths, what):
    commit = git(repo, "rev-parse", REV).strip()
    print(f"# {what}")
    print(f"# repository: {sys.argv[3]}")
    print(f"# commit: {commit}")
    for p in dict.fromkeys(paths):
        print(f"# path: {p}")
    print("# extracted by scripts/framework_names.py (names only)")


def find_class(repo, name, under):
    out = git(repo, "grep", "-l", "-E", f"^class {name}\\b", REV, "--", under)
    for line in out.splitlines():
        path = line.split(":", 1)[1]
        tree = ast.parse(show(repo, path))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return path, node
    raise SystemExit(f"class {name} not found under {under}")


def dataclass_fields(repo, name, under, seen=None):
    """Fields (name, default node, field() call) of a dataclass and its bases, base first."""
    seen = seen or set()
    if name in seen:
        return []
    seen.add(name)
    path, cls = find_class(repo, name, under)
    USED.append(path)
    fields = []
    for b in cls.bases:
        bname = b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)
        if bname and bname not in ("object", "ABC", "BaseModel", "DeepSpeedConfigModel", "Generic"):
            try:
                fields += dataclass_fields(repo, bname, under, seen)
            except SystemExit:
                pass
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            fields.append((node.target.id, node.annotation, node.value))
    return fields


def literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def field_meta(value):
    """(init, default, argparse_meta arg_names) from a field(...) call or a plain default."""
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field":
        kw = {k.arg: k.value for k in value.keywords}
        init = literal(kw["init"]) if "init" in kw else True
        default = literal(kw["default"]) if "default" in kw else None
        names = None
        if "metadata" in kw and isinstance(kw["metadata"], ast.Dict):
            for k, v in zip(kw["metadata"].keys, kw["metadata"].values):
                if literal(k) == "argparse_meta" and isinstance(v, ast.Dict):
                    for k2, v2 in zip(v.keys, v.values):
                        if literal(k2) == "arg_names":
                            names = literal(v2)
        return init, default, names
    return True, literal(value) if value is not None else None, None


def megatron(repo):
    path = "megatron/training/arguments.py"
    src = show(repo, path)
    tree = ast.parse(src)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            for a in node.args:
                v = literal(a)
                if isinstance(v, str) and v.startswith("--"):
                    names.add(v)
    classes = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        assigns = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = literal(node.value)
                if isinstance(v, list):
                    assigns[node.targets[0].id] = v
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ArgumentGroupFactory":
                cname = node.args[0].id
                exclude = []
                for k in node.keywords:
                    if k.arg == "exclude":
                        exclude = literal(k.value) if not isinstance(k.value, ast.Name) else assigns.get(k.value.id, [])
                classes.append(cname)
                for fname, ann, value in dataclass_fields(repo, cname, "megatron"):
                    init, default, argnames = field_meta(value)
                    if fname in exclude or init is False:
                        continue
                    if argnames:
                        names.update(argnames)
                    elif ast.unparse(ann) == "bool" and default is True:
                        names.update(["--no-" + fname.replace("_", "-"), "--disable-" + fname.replace("_", "-")])
                    else:
                        names.add("--" + fname.replace("_", "-"))
    header(repo, [path] + sorted(set(USED)), "Megatron-LM command-line flags")
    for n in sorted(names):
        print(n)


def torchtitan(repo):
    path = "torchtitan/config/job_config.py"
    tree = ast.parse(show(repo, path))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    job = classes["JobConfig"]
    names = []
    for node in job.body:
        if isinstance(node, ast.AnnAssign):
            section, cls = node.target.id, ast.unparse(node.annotation)
            if cls in classes:
                for f in classes[cls].body:
                    if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name):
                        names.append(f"{section}.{f.target.id}")
    header(repo, [path], "torchtitan JobConfig TOML keys (section.key)")
    for n in sorted(set(names)):
        print(n)


def deepspeed(repo):
    paths = ["deepspeed/runtime/constants.py", "deepspeed/runtime/zero/config.py", "deepspeed/runtime/zero/offload_config.py",
             "deepspeed/runtime/activation_checkpointing/config.py"]
    names = set()
    for node in ast.walk(ast.parse(show(repo, paths[0]))):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper():
            v = literal(node.value)
            if isinstance(v, str) and v and " " not in v and v.islower():
                names.add(v)
    tree = ast.parse(show(repo, paths[1]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "ZERO_OPTIMIZATION":
            names.add(literal(node.value))
    for p, cls_names in ((paths[1], ["DeepSpeedZeroConfig"]), (paths[2], ["DeepSpeedZeroOffloadOptimizerConfig", "DeepSpeedZeroOffloadParamConfig"])):
        t = ast.parse(show(repo, p))
        for cls in t.body:
            if isinstance(cls, ast.ClassDef) and cls.name in cls_names:
                prefix = {"DeepSpeedZeroConfig": "zero_optimization.", "DeepSpeedZeroOffloadOptimizerConfig": "zero_optimization.offload_optimizer.",
                          "DeepSpeedZeroOffloadParamConfig": "zero_optimization.offload_param."}[cls.name]
                for f in cls.body:
                    if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name):
                        names.add(prefix + f.target.id)
                        if isinstance(f.value, ast.Call):
                            for k in f.value.keywords:
                                if k.arg == "alias":
                                    names.add(prefix + literal(k.value))
    for node in ast.walk(ast.parse(show(repo, paths[3]))):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("ACT_CHKPT"):
            v = literal(node.value)
            if isinstance(v, str) and node.targets[0].id != "ACT_CHKPT" and not node.targets[0].id.endswith("_DEFAULT"):
                names.add("activation_checkpointing." + v)
            elif node.targets[0].id == "ACT_CHKPT":
                names.add(v)
    header(repo, paths, "DeepSpeed JSON config keys (top-level constants, zero_optimization.* fields and aliases, activation_checkpointing.*)")
    for n in sorted(n for n in names if n):
        print(n)


def try_find(repo, rev, under, name):
    try:
        out = git(repo, "grep", "-l", "-E", f"^class {name}\\b", rev, "--", under)
    except subprocess.CalledProcessError:
        return None
    for line in out.splitlines():
        path = line.split(":", 1)[1]
        tree = ast.parse(git(repo, "show", rev + ":" + path))
        aliases = {(a.asname or a.name): (n.module or "", a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return path, node, aliases
    return None


def fields_across(locs, name, used, seen, module=""):
    """Dataclass fields of name, its bases resolved through imports: a
    class imported from megatron.core or megatron.training is looked up in
    Megatron-LM, any other in the first location that defines it."""
    if module.startswith(("megatron.core", "megatron.training")):
        locs = locs[1:]
    for repo, rev, under in locs:
        found = try_find(repo, rev, under, name)
        if found:
            break
    else:
        return []
    if (repo, name) in seen:
        return []
    seen.add((repo, name))
    path, cls, aliases = found
    used.append((repo, rev, path))
    out = []
    for b in cls.bases:
        bname = b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)
        if isinstance(b, ast.Subscript):
            bname = getattr(b.value, "id", None)
        if bname:
            mod, real = aliases.get(bname, ("", bname))
            out += fields_across(locs, real, used, seen, mod)
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.append(node.target.id)
    return out


def bridge(repo, megatron_repo, sections):
    """section.field of the ConfigContainer sections; bases from Megatron-LM at the submodule commit Bridge pins."""
    sub = git(repo, "ls-tree", REV, "3rdparty/Megatron-LM").split()[2]
    locs = [(repo, REV, "src"), (megatron_repo, sub, "megatron")]
    names, used = set(), []
    for sec in sections:
        section, cls = sec.split("=")
        for f in fields_across(locs, cls, used, set()):
            names.add(f"{section}.{f}")
    header(repo, [p for r, _, p in used if r == repo], "Megatron-Bridge ConfigContainer override keys (section.field)")
    print(f"# bases from: NVIDIA/Megatron-LM at {sub} (Bridge's 3rdparty/Megatron-LM submodule)")
    for p in dict.fromkeys(p for r, _, p in used if r != repo):
        print(f"# path: {p}")
    for n in sorted(names):
        print(n)


if __name__ == "__main__":
    kind, repo = sys.argv[1], sys.argv[2]
    REV = sys.argv[4] if len(sys.argv) > 4 else "HEAD"
    if kind == "megatron":
        megatron(repo)
    elif kind == "torchtitan":
        torchtitan(repo)
    elif kind == "deepspeed":
        deepspeed(repo)
    elif kind == "bridge":
        bridge(repo, sys.argv[5], sys.argv[6:])
