"""Runyard's hooks in a WDL workflow compiled by toil's WDL compiler (toil 5, toil.wdl).

The compiled script imports this module, so it runs in toil's leader and in every worker. It:
- runs each call's command with bash in the call's own execution directory (as Cromwell does),
  its stdout and stderr written to the job's logs as call-<task>[-N].stdout|stderr;
- fails the call when its command exits non-zero (toil's own compiler does not check), writing
  the reason to the job's failure file (RUNYARD_WDL_FAILURE_FILE), which becomes the job's message;
- gives the leader Runyard's options: the job store in the job's work directory, kept when the
  run fails (a resumed job restarts from it), no retries, and `restart` for a resumed run.
"""

import fcntl
import json
import os
import subprocess

from toil.job import Job

LOGS = os.environ.get('RUNYARD_WDL_CALL_LOGS', '')
FAILURE_FILE = os.environ.get('RUNYARD_WDL_FAILURE_FILE', '')
TAIL_BYTES = 2000


class CallFailed(Exception):
    pass


def _log_files(task):
    """call-<task>.stdout|stderr, or call-<task>-2... when the task ran before (scatter, a restart)."""
    n = 1
    while True:
        base = os.path.join(LOGS, 'call-%s%s' % (task, '' if n == 1 else '-%d' % n))
        try:
            fd = os.open(base + '.stdout', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            n += 1
            continue
        os.close(fd)
        return base + '.stdout', base + '.stderr'


def _tail(path):
    with open(path, 'rb') as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - TAIL_BYTES))
        return f.read().decode('utf-8', 'replace').strip()


def write_failure(text):
    """The first failure wins: it is the cause; what follows it is its consequence."""
    if not FAILURE_FILE:
        return
    # Runyard made the file (empty) and binds it writable into the sandbox: write it only while empty.
    with open(FAILURE_FILE, 'a') as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        if os.fstat(f.fileno()).st_size == 0:
            f.write(text)


def _say(line):
    """A line in the job's log (the launcher's stdout): a worker's own output is toil's, kept in engine.log."""
    target = os.environ.get('RUNYARD_WDL_JOB_LOG')
    try:
        with open(target, 'a') as f:
            f.write(line + '\n')
    except (OSError, TypeError):
        print(line, flush=True)


def run_call(task, cmd, temp_dir):
    """Runs one call's command; returns its (stdout, stderr) as bytes, as the compiled code expects."""
    execution = os.path.join(temp_dir, 'execution')
    os.makedirs(execution, exist_ok=True)
    stdout_path, stderr_path = _log_files(task)
    _say('Runyard: call %s started (its output: %s)' % (task, os.path.basename(stdout_path)))
    with open(stdout_path, 'wb') as out, open(stderr_path, 'wb') as err:
        rc = subprocess.call(['/bin/bash', '-c', cmd], cwd=execution, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    if rc != 0:
        tail = _tail(stderr_path)
        reason = 'The WDL call %s failed: its command exited with code %d.' % (task, rc)
        if tail:
            reason += ' Its stderr ends with: ' + tail
        write_failure(reason)
        _say('Runyard: ' + reason)
        raise CallFailed(reason)
    _say('Runyard: call %s finished' % task)
    with open(stdout_path, 'rb') as f:
        stdout = f.read()
    with open(stderr_path, 'rb') as f:
        stderr = f.read()
    return stdout, stderr


def runyard_options(job_store):
    options = Job.Runner.getDefaultOptions(job_store)
    # Kept when the run fails: a resumed job restarts from it; removed when it succeeds.
    options.clean = 'onSuccess'
    options.restart = os.environ.get('RUNYARD_WDL_RESTART') == '1'
    # A failed call is the job's failure: retrying it would only repeat it.
    options.retryCount = 0
    work_dir = os.environ.get('RUNYARD_WDL_TOIL_WORK_DIR')
    if work_dir:
        options.workDir = work_dir
    return options


def start_workflow(toil, root_job):
    """Starts the workflow, or restarts it from its job store: the calls that finished are not run again."""
    if toil.options.restart:
        return toil.restart()
    return toil.start(root_job)


def _output_value(value):
    """A workflow output as JSON: a File as the name of its copy in the job's results, containers item by item."""
    from toil.wdl.wdl_types import WDLFile, WDLPair
    if isinstance(value, WDLFile):
        return value.file_name or os.path.basename(str(value.file_path))
    if isinstance(value, WDLPair):
        return {'left': _output_value(value.left), 'right': _output_value(value.right)}
    if isinstance(value, tuple) and len(value) == 2:  # a Pair literal, as toil's compiler makes it
        return {'left': _output_value(value[0]), 'right': _output_value(value[1])}
    if isinstance(value, (list, tuple)):
        return [_output_value(v) for v in value]
    if isinstance(value, dict):
        return {str(_output_value(k)): _output_value(v) for k, v in value.items()}
    return value


def write_outputs(job, values, manifest):
    """The last job of a run: the workflow's outputs, their promises resolved, written to manifest as JSON.

    toil's WDL compiler (toil 5) leaves a workflow's output section out: the launcher hands its
    expressions here (runyard_toil_wdl.py), so that every output, of every type, is kept.
    """
    outputs = {name: _output_value(value) for name, value in values.items()}
    with open(manifest, 'w') as f:
        json.dump(outputs, f, indent=2, sort_keys=True)
        f.write('\n')

