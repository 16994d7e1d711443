"""Runs the composite action in action.yml locally, as a GitHub runner would, and checks it.

The runner part (`run_action`) reads action.yml, fills in the inputs' defaults, evaluates the
expressions the action uses (`inputs.*`, `steps.<id>.outputs.*`, `github.action_path`,
`runner.os`, `runner.temp`, `github.workspace`; `if:` with `==`, `!=` and `&&`), runs each `run:`
step with `bash --noprofile --norc -eo pipefail` in its working directory with GITHUB_OUTPUT and
GITHUB_PATH files, stops at the first failing step, and evaluates the action's outputs.
`actions/cache` (and its `restore` and `save` parts) is emulated by a folder of saved caches: a hit
copies the saved folder to `path` (output cache-hit=true); `save` copies `path` there, as does
`actions/cache` after a successful job.

The tests (`main`) run it on a small git repository holding docs/sample.md (one finding at tier
0) for the inputs the action takes. Usage: runner.py ROOT OUT [--install] [--tier1]
  --install  start with an empty cache, so the action builds segue with `cargo install` (release)
  --tier1    also run the action with tier 1 (the models must be installed in ROOT/models)
Without --install, the saved cache is seeded with ROOT/target/debug/segue as if an earlier run had
built it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Context:
    """What expressions can read while the action runs."""

    def __init__(self, inputs, env):
        self.inputs = inputs
        self.steps = {}
        self.env = env

    def value(self, name):
        parts = name.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return self.inputs.get(parts[1], "")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        fixed = {
            "github.action_path": self.env["GITHUB_ACTION_PATH"],
            "github.workspace": self.env["GITHUB_WORKSPACE"],
            "runner.os": self.env["RUNNER_OS"],
            "runner.temp": self.env["RUNNER_TEMP"],
        }
        if name in fixed:
            return fixed[name]
        raise ValueError(f"expression not supported by this runner: {name}")

    def evaluate(self, expr):
        """A condition or a value: `a && b`, `x == 'v'`, `x != 'v'`, a name or a quoted string."""
        expr = expr.strip()
        if "&&" in expr:
            return all(self.truthy(self.evaluate(part)) for part in expr.split("&&"))
        for op in ("!=", "=="):
            if op in expr:
                left, right = (self.evaluate(side) for side in expr.split(op, 1))
                return (str(left) != str(right)) if op == "!=" else (str(left) == str(right))
        if len(expr) >= 2 and expr[0] == expr[-1] == "'":
            return expr[1:-1]
        return self.value(expr)

    @staticmethod
    def truthy(value):
        return value not in ("", False, None, "false", 0)

    def substitute(self, text):
        return EXPR.sub(lambda m: str(self.evaluate(m.group(1))), str(text))

    def condition(self, text):
        if text is None:
            return True
        inner = EXPR.fullmatch(str(text).strip())
        return self.truthy(self.evaluate(inner.group(1) if inner else str(text)))


def read_outputs(path):
    """name=value lines and name<<DELIM heredocs, as GITHUB_OUTPUT holds them."""
    out, lines = {}, Path(path).read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : j])
            i = j + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


def link_or_copy(src, dst):
    """Hard-links `src` to `dst` where the file system allows it, else copies: a cache entry
    holds a segue binary, and a dozen copies of it took gigabytes."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst


def run_action(action_dir, workspace, inputs, env, cache_store, seed=None):
    """Runs action.yml; returns a dict: ok, failed (the failing step's name), outputs, steps (each
    name with ran/skipped and exit code), stdout, path (the PATH after the job). `seed(key,
    folder)`, when given, is called on a cache miss and may fill `folder` (saved under `key`) to
    stand for what an earlier run saved."""
    action = yaml.safe_load((Path(action_dir) / "action.yml").read_text())
    assert action["runs"]["using"] == "composite", "not a composite action"
    given = dict(inputs)
    unknown = set(given) - set(action.get("inputs", {}))
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values = {k: str(given.get(k, v.get("default", ""))) for k, v in action["inputs"].items()}
    ctx = Context(values, env)
    env = dict(env)
    result = {"ok": True, "failed": None, "steps": [], "stdout": ""}
    saves = []
    for n, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("id") or step.get("uses") or f"step {n}"
        if not ctx.condition(step.get("if")):
            result["steps"].append({"name": name, "ran": False})
            continue
        if "uses" in step:
            uses = step["uses"].split("@")[0]
            assert uses in ("actions/cache", "actions/cache/restore", "actions/cache/save"), f"unemulated action {step['uses']}"
            with_ = {k: ctx.substitute(v) for k, v in step.get("with", {}).items()}
            saved = Path(cache_store) / with_["key"]
            if uses == "actions/cache/save":
                if Path(with_["path"]).is_dir() and not saved.exists():
                    shutil.copytree(with_["path"], saved, symlinks=True, copy_function=link_or_copy)
                result["steps"].append({"name": name, "ran": True, "saved": saved.is_dir()})
                continue
            if not saved.is_dir() and seed is not None:
                seed(with_["key"], saved)
            hit = saved.is_dir()
            if hit:
                shutil.rmtree(with_["path"], ignore_errors=True)
                shutil.copytree(saved, with_["path"], symlinks=True, copy_function=link_or_copy)
            elif uses == "actions/cache":
                saves.append((with_["path"], saved))
            ctx.steps[step.get("id", f"_{n}")] = {"cache-hit": "true" if hit else ""}
            result["steps"].append({"name": name, "ran": True, "cache-hit": hit})
            continue
        assert step.get("shell") == "bash", f"{name}: only bash steps are emulated"
        step_env = dict(env)
        step_env.update({k: ctx.substitute(v) for k, v in step.get("env", {}).items()})
        tmp = Path(env["RUNNER_TEMP"])
        outputs, path_file = tmp / f"output-{n}", tmp / f"path-{n}"
        outputs.write_text("")
        path_file.write_text("")
        script = tmp / f"step-{n}.sh"
        script.write_text(step["run"])
        step_env.update(GITHUB_OUTPUT=str(outputs), GITHUB_PATH=str(path_file))
        cwd = Path(workspace) / ctx.substitute(step.get("working-directory", "."))
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd, env=step_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        result["stdout"] += proc.stdout
        ctx.steps[step.get("id", f"_{n}")] = read_outputs(outputs)
        added = [p for p in path_file.read_text().splitlines() if p]
        env["PATH"] = os.pathsep.join(list(reversed(added)) + [env["PATH"]])
        result["steps"].append({"name": name, "ran": True, "rc": proc.returncode})
        if proc.returncode != 0:
            result["ok"], result["failed"] = False, name
            break
    result["outputs"] = {k: ctx.substitute(v["value"]) for k, v in action.get("outputs", {}).items()}
    result["path"] = env["PATH"]
    for path, saved in saves if result["ok"] else []:  # actions/cache's post step: on success
        if Path(path).is_dir() and not saved.exists():
            shutil.copytree(path, saved, symlinks=True, copy_function=link_or_copy)
    return result


def git(workspace, *args):
    subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)


def main():
    root, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    install, tier1, keep = "--install" in sys.argv, "--tier1" in sys.argv, "--keep" in sys.argv
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    store = out / "cache-store"
    store.mkdir()
    failures, log = [], []
    seed_binary = root / "target" / "debug" / "segue"

    def seed(key, folder):
        """Without --install, the segue cache holds target/debug/segue, as if built earlier."""
        if not install and key.startswith("segue-Linux-"):
            (folder / "bin").mkdir(parents=True)
            link_or_copy(seed_binary, folder / "bin" / "segue")

    def job(label, inputs, extra_env=None, change=None):
        """One workflow job: a fresh runner home and workspace, the action with `inputs`."""
        base = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=out))
        ws, home, temp = base / "workspace", base / "home", base / "runner-temp"
        for d in (ws / "docs", home, temp):
            d.mkdir(parents=True)
        shutil.copy(root / "docs" / "sample.md", ws / "docs" / "sample.md")
        user = ["-c", "user.name=test", "-c", "user.email=test@example.invalid"]
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, *user, "commit", "-q", "-m", "docs")
        if change:
            change(ws)
        env = {
            "PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8",
            "GITHUB_ACTION_PATH": str(root), "GITHUB_WORKSPACE": str(ws),
            "RUNNER_OS": "Linux", "RUNNER_TEMP": str(temp), "CI": "true", "GITHUB_ACTIONS": "true",
        }
        if install:
            # cargo and rustup live in the real home; the install gets a clean CARGO_HOME.
            env["RUSTUP_HOME"] = os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup"))
            env["CARGO_HOME"] = str(out / "cargo-home")
            if "CARGO_TARGET_DIR" in os.environ:
                env["CARGO_TARGET_DIR"] = os.environ["CARGO_TARGET_DIR"]
        env.update(extra_env or {})
        res = run_action(root, ws, inputs, env, store, seed)
        res["job"], res["inputs"] = label, inputs
        log.append(res)
        after = subprocess.run(["segue", "--version"], env={"PATH": res["path"]}, capture_output=True, text=True)
        res["segue on PATH"] = after.returncode == 0
        if not keep:
            shutil.rmtree(base, ignore_errors=True)  # jobs.json keeps what the job did
        return res

    def expect(label, res, cond, what):
        status = "ok" if cond else "FAILED"
        print(f"  {status:6} {label}: {what} (exit-code {res['outputs'].get('exit-code')!r}, findings {res['outputs'].get('findings')!r})")
        if not cond:
            brief = {k: res[k] for k in ("ok", "failed", "outputs", "steps")}
            failures.append(f"{label}: {what}: {json.dumps(brief)}\n{res['stdout'][-3000:]}")

    def ran(res, name):
        return any(s["name"] == name and s["ran"] for s in res["steps"])

    r = job("defaults", {"paths": "docs/sample.md"})
    expect("defaults", r, not r["ok"] and r["failed"] == "segue check" and r["outputs"] == {"exit-code": "1", "findings": "1"}
           and "::warning file=docs/sample.md,line=14," in r["stdout"], "a finding fails the step and is annotated")
    expect("defaults", r, r["segue on PATH"], "segue is on the PATH after the action")
    if install:
        expect("defaults", r, ran(r, "Install segue"), "a cache miss builds segue with cargo install")
        r = job("cached", {"paths": "docs/sample.md", "exit-zero": "true"})
        expect("cached", r, not ran(r, "Install segue") and r["ok"], "the next job restores segue from the cache")
    else:
        expect("defaults", r, not ran(r, "Install segue") and not ran(r, "Install the models"),
               "a cache hit skips the install; tier 0 installs no models")

    r = job("exit-zero", {"paths": "docs/sample.md", "exit-zero": "true"})
    expect("exit-zero", r, r["ok"] and r["outputs"] == {"exit-code": "0", "findings": "1"}, "annotates without failing")

    r = job("paths", {"paths": "docs/sample.md\n  docs  ", "sensitivity": "low", "exit-zero": "true"})
    expect("paths", r, r["ok"] and r["outputs"]["exit-code"] == "0", "newline- and space-separated paths, --sensitivity low")

    r = job("working-directory", {"paths": "sample.md", "working-directory": "docs", "exit-zero": "true"})
    expect("working-directory", r, r["ok"] and "::warning file=sample.md," in r["stdout"], "paths are read from working-directory")

    r = job("diff-unchanged", {"paths": "docs", "diff": "HEAD"})
    expect("diff-unchanged", r, r["ok"] and r["outputs"] == {"exit-code": "0", "findings": "0"}, "--diff HEAD with nothing changed reports nothing")

    def touch_line_14(ws):
        path = ws / "docs" / "sample.md"
        lines = path.read_text().split("\n")
        lines[13] += " "
        path.write_text("\n".join(lines))

    r = job("diff-changed", {"paths": "docs", "diff": "HEAD"}, change=touch_line_14)
    expect("diff-changed", r, r["outputs"] == {"exit-code": "1", "findings": "1"}, "--diff HEAD reports the changed paragraph's finding")

    r = job("diff-bad-base", {"paths": "docs", "diff": "no-such-revision", "exit-zero": "true"})
    expect("diff-bad-base", r, not r["ok"] and r["outputs"]["exit-code"] == "2", "an unknown base is an error (exit 2) even with exit-zero")

    r = job("bad-exit-zero", {"paths": "docs", "exit-zero": "yes"})
    expect("bad-exit-zero", r, not r["ok"] and "exit-zero must be true or false" in r["stdout"], "a bad exit-zero value is refused")

    if tier1:
        models = {"SEGUE_MODELS_DIR": str(root / "models")}
        r = job("tier1", {"paths": "docs/sample.md", "tier": "1", "exit-zero": "true"}, extra_env=models)
        expect("tier1", r, r["ok"] and ran(r, "Install the models") and r["outputs"]["exit-code"] == "0"
               and "models: up to date" in r["stdout"], "tier 1 installs (here: checks) the models, then checks")

    (out / "jobs.json").write_text(json.dumps(log, indent=1))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
