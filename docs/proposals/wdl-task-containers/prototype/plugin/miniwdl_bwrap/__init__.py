"""
Prototype miniwdl container backend (scouting for Runyard, issue 44 section 2).

Each task runs under bubblewrap, with no daemon:

- a task whose runtime names an image (``docker``/``container``): the image is resolved to a digest
  (``skopeo inspect --raw``), copied into an OCI layout (``skopeo copy``) and unpacked once per digest
  (``umoci raw unpack --rootless``) under ``[bwrap] image_cache``; the sandbox's root is bwrap's own
  tmpfs, each entry of the image's root bound into it read-only (as Runyard's image-root.ts does), the
  task's directories bound at miniwdl's in-container paths, then the root remounted read-only;
- a task that names none (set ``[task_runtime] defaults = {}``, else miniwdl gives every task
  ``ubuntu:22.04``): the host's /usr and a few /etc entries read-only, as Runyard's default sandbox.

Mounts are those of miniwdl's cli_subprocess backends (prepare_mounts): the work directory,
stdout.txt and stderr.txt read-write, the command script and each input file read-only.

cpu/memory: miniwdl's own scheduler (SubprocessBase) reserves them against the host's; with
``[bwrap] cgroup = true`` each task is also put into a cgroup (v1 or v2) under this process's own,
with ``memory.limit_in_bytes``/``memory.max`` = runtime.memory x memory_limit_multiplier (or
runtime.memory when the multiplier is 0) and a CFS quota of runtime.cpu CPUs.

Configuration ([bwrap] section; env MINIWDL__BWRAP__<KEY>):
  exe                 bwrap (default "bwrap")
  image_cache         directory of the cache (default ~/.cache/miniwdl-bwrap)
  insecure_registries JSON list of registries spoken to over plain HTTP (e.g. ["127.0.0.1:5055"])
  image_dirs          JSON object image reference -> an unpacked root filesystem to use as is
  enter               a static first program (Runyard's runyard-enter) bound at /.runyard/enter
  network             "none" (default: --unshare-net) or "host"
  cgroup              true/false (default false)
  authfile            a docker-style auth file handed to skopeo (--authfile)
  mirrors             JSON object registry -> mirror registry (e.g. {"docker.io": "127.0.0.1:5055"})
  ignore_images       true: every task on the host system, its image named in the log (tests without a registry)
  proc                "new" (default: --proc) or "bind" (the outer /proc, for bwrap nested in another sandbox)
  task_uid, task_gid  for a root miniwdl: no user namespace, the task dropped to this uid:gid (runyard-enter/setpriv)
"""

import os
import json
import shlex
import shutil
import hashlib
import logging
import tempfile
import threading
import subprocess
from contextlib import ExitStack
from typing import Any, Dict, List, Optional, Tuple

from WDL._util import StructuredLogMessage as _
from WDL.runtime import config
from WDL.runtime.error import DownloadFailed
from WDL.runtime.backend.cli_subprocess import SubprocessBase
from WDL.Error import RuntimeError as WDLRuntimeError, InputError

# What of the host's /etc a task without an image sees (Runyard's ETC_ENTRIES, abridged).
ETC_ENTRIES = [
    "passwd", "group", "hosts", "host.conf", "resolv.conf", "nsswitch.conf", "services",
    "protocols", "ssl/certs", "ca-certificates", "alternatives", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "localtime", "timezone",
]
SYSTEM_TOP = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]
# Names of the image's root the sandbox makes itself, or never shows.
MADE_BY_SANDBOX = {"proc", "dev", "tmp", "sys", ".runyard"}
ENTER_IN_SANDBOX = "/.runyard/enter"
NOBODY = 65534


class BwrapContainer(SubprocessBase):
    _images: Dict[str, Dict[str, Any]] = {}
    _images_lock = threading.Lock()
    _cache_dir: str = ""
    _bwrap: str = "bwrap"

    # ---------------------------------------------------------------- class set-up

    @classmethod
    def global_init(cls, cfg: config.Loader, logger: logging.Logger) -> None:
        cls._bwrap = cfg.get("bwrap", "exe", "bwrap")
        try:
            version = subprocess.run(
                [cls._bwrap, "--version"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as exn:
            raise WDLRuntimeError(f"bubblewrap ({cls._bwrap}) is not usable: {exn}") from None
        cls._cache_dir = os.path.abspath(
            os.path.expanduser(cfg.get("bwrap", "image_cache", "~/.cache/miniwdl-bwrap"))
        )
        for sub in ("oci", "rootfs", "configs", "tmp"):
            os.makedirs(os.path.join(cls._cache_dir, sub), exist_ok=True)
        logger.notice(  # pyre-ignore
            _("bwrap backend initialized (prototype)", bwrap=version, image_cache=cls._cache_dir)
        )

    @property
    def cli_name(self) -> str:
        return "bwrap"

    # ---------------------------------------------------------------- images

    def _pull(self, logger: logging.Logger, cleanup: ExitStack) -> str:
        """The image reference of the task ("" for none); the image is in the cache afterwards."""
        image = self.runtime_values.get("docker") or self.cfg.get_dict("task_runtime", "defaults").get(
            "docker", ""
        )
        if not image:
            return ""
        if self.cfg.get_bool("bwrap", "ignore_images", False):
            logger.warning(_("bwrap: the task's image is ignored ([bwrap] ignore_images); it runs on the host system", image=image))
            return ""
        with self._images_lock:
            if image in self._images:
                logger.info(_("bwrap image already pulled", image=image, **self._images[image]["log"]))
                return image
        # one pull at a time (skopeo rewrites the layout's index.json whole)
        with self._pull_lock:
            with self._images_lock:
                if image in self._images:
                    return image
            info = self._pull_image(logger, image)
            with self._images_lock:
                self._images[image] = info
        return image

    def _skopeo_common(self, ref: str, src: bool) -> List[str]:
        args = []
        registry = ref.split("/")[0] if "/" in ref else ""
        insecure = self.cfg.get_list("bwrap", "insecure_registries", [])
        if registry in insecure:
            args.append("--src-tls-verify=false" if src else "--tls-verify=false")
        authfile = self.cfg.get("bwrap", "authfile", "")
        if authfile:
            args.append(("--src-authfile=" if src else "--authfile=") + authfile)
        return args

    def _pull_image(self, logger: logging.Logger, image: str) -> Dict[str, Any]:
        dirs = self.cfg.get_dict("bwrap", "image_dirs", {})
        if image in dirs:
            rootfs = os.path.abspath(dirs[image])
            logger.notice(_("bwrap image from a configured directory", image=image, rootfs=rootfs))  # pyre-ignore
            return {"rootfs": rootfs, "env": {}, "uid": 0, "gid": 0, "log": {"rootfs": rootfs}}
        ref = image if "/" in image.split(":")[0] or "." in image.split("/")[0] else "docker.io/library/" + image
        ref = ref if "/" in ref else "docker.io/library/" + ref
        if ref.startswith("docker.io/") and ref.count("/") == 1:
            ref = "docker.io/library/" + ref[len("docker.io/"):]
        if ":" not in ref.split("/")[-1] and "@" not in ref:
            ref += ":latest"
        # a registry served from a mirror ([bwrap] mirrors, as Runyard's RUNYARD_REGISTRY_MIRRORS)
        registry = ref.split("/")[0]
        mirror = self.cfg.get_dict("bwrap", "mirrors", {}).get(registry)
        if mirror:
            ref = mirror + ref[len(registry):]
        import time

        t0 = time.time()
        try:
            manifest = subprocess.run(
                ["skopeo", "inspect", "--raw"] + self._skopeo_common(ref, False) + ["docker://" + ref],
                capture_output=True, check=True,
            ).stdout
            digest = "sha256:" + hashlib.sha256(manifest).hexdigest()
            hexd = digest.split(":")[1]
            rootfs = os.path.join(self._cache_dir, "rootfs", "sha256-" + hexd)
            config_file = os.path.join(self._cache_dir, "configs", "sha256-" + hexd + ".json")
            base = ref.rsplit("@", 1)[0]
            if ":" in base.split("/")[-1]:
                base = base.rsplit(":", 1)[0]
            pinned = base + "@" + digest
            if not os.path.isdir(rootfs):
                tag = "sha256-" + hexd
                layout = os.path.join(self._cache_dir, "oci")
                subprocess.run(
                    ["skopeo", "copy", "--quiet"] + self._skopeo_common(ref, True)
                    + ["docker://" + pinned, f"oci:{layout}:{tag}"],
                    capture_output=True, check=True,
                )
                tmp = tempfile.mkdtemp(dir=os.path.join(self._cache_dir, "tmp"))
                unpacked = os.path.join(tmp, "bundle")
                subprocess.run(
                    ["umoci", "raw", "unpack", "--rootless", "--image", f"{layout}:{tag}", unpacked],
                    capture_output=True, check=True,
                )
                # setuid/setgid bits off, the tree read-only (Runyard's rootfs-prepare does more)
                subprocess.run(["chmod", "-R", "ug-s,a-w", unpacked], capture_output=True, check=True)
                subprocess.run(["chmod", "u+w", unpacked], check=True)
                os.rename(unpacked, rootfs)
                os.rmdir(tmp)
                cfgjson = subprocess.run(
                    ["skopeo", "inspect", "--config"] + self._skopeo_common(ref, False) + [f"oci:{layout}:{tag}"],
                    capture_output=True, check=True,
                ).stdout
                with open(config_file, "wb") as f:
                    f.write(cfgjson)
                pulled = True
            else:
                pulled = False
        except subprocess.CalledProcessError as cpe:
            logger.error(
                _("bwrap image pull failed", image=image, command=" ".join(cpe.cmd),
                  stderr=(cpe.stderr or b"").decode(errors="replace").strip().split("\n"))
            )
            raise DownloadFailed(image) from None
        with open(config_file) as f:
            oci_config = json.load(f).get("config", {})
        env = dict(kv.split("=", 1) for kv in oci_config.get("Env", []) or [] if "=" in kv)
        uid, gid = _numeric_user(oci_config.get("User", ""), rootfs)
        log = {"digest": digest, "rootfs": rootfs, "pulled": pulled, "seconds": round(time.time() - t0, 2)}
        logger.notice(_("bwrap image ready", image=image, **log))  # pyre-ignore
        return {"rootfs": rootfs, "env": env, "uid": uid, "gid": gid, "log": log}

    # ---------------------------------------------------------------- the sandbox

    def _run_invocation(self, logger: logging.Logger, cleanup: ExitStack, image: str) -> List[str]:
        mounts = self.prepare_mounts()
        # binds from parents to children, so a read-only input inside the writable work dir stays read-only
        mounts.sort(key=lambda m: m[0].rstrip("/").count("/"))
        points = [m[0] for m in mounts]
        info = self._images[image] if image else None
        enter = self.cfg.get("bwrap", "enter", "")
        root = os.geteuid() == 0
        task_user: Optional[Tuple[int, int]] = None
        if root and self.cfg.get("bwrap", "task_uid", ""):
            task_user = (int(self.cfg.get("bwrap", "task_uid")), int(self.cfg.get("bwrap", "task_gid", "65534")))

        ans = [self._bwrap, "--die-with-parent"]
        if task_user is None:
            # own user namespace: the image's user (root when it names none) or nobody, no capabilities
            uid, gid = (info["uid"], info["gid"]) if info else (NOBODY, NOBODY)
            ans += ["--unshare-user", "--uid", str(uid), "--gid", str(gid), "--disable-userns", "--cap-drop", "ALL"]
        ans += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if self.cfg.get("bwrap", "network", "none") != "host":
            ans.append("--unshare-net")
        if info:
            ans += _image_root_args(info["rootfs"], points + ["/var/tmp"])
            if enter:
                ans += ["--ro-bind", enter, ENTER_IN_SANDBOX]
        else:
            if task_user:
                ans += ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/etc/ssl"]
            ans += _system_args()
        # nested in another bwrap (a Runyard job's task), a fresh procfs cannot be mounted (the outer one has
        # read-only binds over /proc/sys etc.): "bind" shows the outer sandbox's /proc instead
        ans += (["--ro-bind", "/proc", "/proc"] if self.cfg.get("bwrap", "proc", "new") == "bind" else ["--proc", "/proc"])
        ans += ["--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp",
                "--perms", "1777", "--tmpfs", "/var/tmp"]
        if task_user:
            # bwrap as root makes the folders above a mount point 0700 and root's (Runyard's openParents)
            parents = set()
            for pt in points:
                d = os.path.dirname(pt.rstrip("/"))
                while d != "/":
                    parents.add(d)
                    d = os.path.dirname(d)
            for d in sorted(parents, key=lambda x: x.count("/")):
                if not d.startswith(os.path.join(self.container_dir, "work")):
                    ans += ["--perms", "0755", "--dir", d]
        for container_path, host_path, writable in mounts:
            ans += ["--bind" if writable else "--ro-bind", host_path, container_path]
        ans += ["--remount-ro", "/", "--chdir", os.path.join(self.container_dir, "work")]
        if info:
            for k, v in info["env"].items():
                ans += ["--setenv", k, v]
        else:
            ans += ["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]
        ans += ["--setenv", "HOME", os.path.join(self.container_dir, "work")]
        ans.append("--")
        if info and enter:
            ans += [ENTER_IN_SANDBOX] + (["--uid", str(task_user[0]), "--gid", str(task_user[1])] if task_user else []) + ["--"]
        elif task_user:
            ans += ["/usr/bin/setpriv", f"--reuid={task_user[0]}", f"--regid={task_user[1]}", "--clear-groups",
                    "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]
        if task_user:
            # the task's user must write its work dir and streams
            for p in (self.host_work_dir(), self.host_stdout_txt(), self.host_stderr_txt()):
                subprocess.run(["chown", "-R", f"{task_user[0]}:{task_user[1]}", p], check=True)

        if self.cfg.get_bool("bwrap", "cgroup", False):
            self._cgroup = _TaskCgroup(self.run_id, self.runtime_values, self.cfg, logger)
            cleanup.callback(self._cgroup.remove)
            ans = self._cgroup.wrap(ans)

        logger.info(
            _("bwrap invocation", image=image or "(host system)", args=" ".join(shlex.quote(s) for s in ans),
              binds=len(mounts))
        )
        with open(os.path.join(self.host_dir, "bwrap.argv.json"), "w") as f:
            json.dump(ans, f, indent=1)
        return ans


def _numeric_user(user: str, rootfs: str) -> Tuple[int, int]:
    """The image's User as numbers (root when none; names looked up in the image's own /etc/passwd)."""
    if not user:
        return 0, 0
    name, _sep, group = user.partition(":")
    def lookup(file: str, key: str) -> Optional[Tuple[int, int]]:
        if key.isdigit():
            return int(key), int(key)
        p = os.path.join(rootfs, "etc", file)
        if os.path.islink(p) or not os.path.isfile(p):
            return None
        for line in open(p):
            f = line.split(":")
            if f[0] == key and len(f) > 3:
                return int(f[2]), int(f[3])
        return None
    u = lookup("passwd", name)
    if u is None:
        raise WDLRuntimeError(f"the image's user {user} is not in its /etc/passwd")
    gid = u[1]
    if group:
        g = lookup("group", group)
        if g is None:
            raise WDLRuntimeError(f"the image's group {group} is not in its /etc/group")
        gid = g[0]
    return u[0], gid


def _image_root_args(rootfs: str, mount_points: List[str]) -> List[str]:
    """Each entry of the image's root bound read-only into bwrap's tmpfs root (Runyard's image-root.ts)."""
    points = [os.path.normpath(p) for p in mount_points]

    def entries(d: str, inside: str, pts: List[str]) -> List[str]:
        args: List[str] = []
        for name in sorted(os.listdir(d)):
            if inside == "/" and name in MADE_BY_SANDBOX:
                continue
            host = os.path.join(d, name)
            dest = os.path.join(inside, name)
            if dest in pts:
                continue
            below = [p for p in pts if p.startswith(dest + "/")]
            if below:
                # a folder of the image on the way to a mount point: made, its entries bound (links replaced)
                args += ["--dir", dest]
                if os.path.isdir(host) and not os.path.islink(host):
                    args += entries(host, dest, below)
                continue
            if os.path.islink(host):
                args += ["--symlink", os.readlink(host), dest]
            elif os.path.isdir(host) or os.path.isfile(host):
                args += ["--ro-bind", host, dest]
        return args

    return entries(rootfs, "/", points)


def _system_args() -> List[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_TOP:
        top = "/" + name
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for entry in ETC_ENTRIES:
        args += ["--ro-bind-try", "/etc/" + entry, "/etc/" + entry]
    return args


class _TaskCgroup:
    """A cgroup per task under this process's own (v2 where the unified hierarchy has memory, else v1)."""

    def __init__(self, run_id: str, rv: Dict[str, Any], cfg: config.Loader, logger: logging.Logger) -> None:
        self.dirs: List[str] = []
        name = f"miniwdl-bwrap-{os.getpid()}-{run_id}".replace("/", "_")
        mem = rv.get("memory_limit") or rv.get("memory_reservation") or 0
        cpu = rv.get("cpu") or 0
        own = {}
        for line in open("/proc/self/cgroup"):
            hid, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in ctrls.split(",") if ctrls else [""]:
                own[c] = path
        v2 = "/sys/fs/cgroup/cgroup.controllers"
        if os.path.exists(v2) and "memory" in open(v2).read():
            d = os.path.join("/sys/fs/cgroup" + own[""], name)
            os.makedirs(d)
            self.dirs.append(d)
            if mem:
                open(os.path.join(d, "memory.max"), "w").write(str(mem))
            if cpu:
                open(os.path.join(d, "cpu.max"), "w").write(f"{int(cpu) * 100000} 100000")
            self.procs = [os.path.join(d, "cgroup.procs")]
        else:
            self.procs = []
            for ctrl, files in (("memory", {"memory.limit_in_bytes": mem}),
                                ("cpu", {"cpu.cfs_period_us": 100000 if cpu else 0, "cpu.cfs_quota_us": int(cpu) * 100000})):
                base = f"/sys/fs/cgroup/{ctrl}"
                if ctrl not in own or not os.path.isdir(base):
                    continue
                d = os.path.join(base + own[ctrl], name)
                os.makedirs(d)
                self.dirs.append(d)
                for fname, value in files.items():
                    if value:
                        open(os.path.join(d, fname), "w").write(str(value))
                self.procs.append(os.path.join(d, "cgroup.procs"))
        self.logger = logger
        logger.info(_("bwrap task cgroup", dirs=self.dirs, memory_max=mem, cpus=cpu))

    def wrap(self, argv: List[str]) -> List[str]:
        # the launcher joins the groups, then execs bwrap (a shell: no preexec_fn in miniwdl's Popen)
        script = "".join(f"echo $$ > {shlex.quote(p)} && " for p in self.procs) + 'exec "$@"'
        return ["/bin/sh", "-c", script, "miniwdl-bwrap-cgroup"] + argv

    def remove(self) -> None:
        for d in self.dirs:
            for stat in ("cpu.cfs_quota_us", "cpu.stat", "memory.failcnt", "memory.events"):
                if os.path.exists(os.path.join(d, stat)):
                    self.logger.info(_("bwrap task cgroup " + stat, dir=d, value=open(os.path.join(d, stat)).read().split("\n")))
        for d in self.dirs:
            try:
                os.rmdir(d)
            except OSError:
                pass
