"""Runs a WDL workflow with toil's WDL compiler (toil 5: toil.wdl.toilwdl), as Runyard's toil driver.

usage: runyard_toil_wdl.py MAIN.wdl INPUTS.json --dir RUN_DIR --results RESULTS

toil-wdl-runner 5 compiles the workflow to a toil script and runs it with options it fixes (its
job store always deleted, so nothing can be resumed; a call's exit code not checked). This
launcher uses the same compiler (toil.wdl's analyzer and SynthesizeWDL) with Runyard's hooks
(runyard_toil_calls.py) and runs the compiled script: in RUN_DIR it keeps the compiled script,
the job store and the calls' output files; at the end it copies those outputs into RESULTS.
RUNYARD_WDL_RESTART=1 restarts from the job store of an earlier run in RUN_DIR.
"""

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import zipfile
from collections import deque

# The job's log (stdout) is for the workflow: Runyard's lines and its calls. toil's own diagnostics
# (its leader's and workers' logging, the parser's version warnings, Python's tracebacks) go to
# engine.log beside it, from here on, before toil is imported.
ENGINE_LOG = 'engine.log'
if os.environ.get('RUNYARD_WDL_CALL_LOGS'):
    _engine = os.open(os.path.join(os.environ['RUNYARD_WDL_CALL_LOGS'], ENGINE_LOG),
                      os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    os.dup2(_engine, 2)
    os.close(_engine)

from runyard_toil_calls import write_failure  # noqa: E402

try:
    from toil.wdl.toilwdl import get_analyzer
    from toil.wdl.utils import dict_from_JSON
    from toil.wdl.wdl_synthesis import SynthesizeWDL
except ImportError as e:  # toil 6 replaced this compiler with a runner of its own
    write_failure('Runyard runs WDL with the WDL compiler of toil 5 (toil.wdl.toilwdl, Debian\'s toil package), '
                  'which this Python does not have: %s' % e)
    raise

ROOT_JOB_START = '\n        fileStore.start(job0)\n'


class RunyardSynthesis(SynthesizeWDL):
    """toil's synthesis, with a call's command run by runyard_toil_calls and Runyard's leader options."""

    def write_modules(self):
        return super().write_modules() + 'from runyard_toil_calls import run_call, runyard_options, start_workflow, write_outputs\n'

    def write_function(self, job):
        self.runyard_task = job
        return super().write_function(job)

    def write_function_subprocesspopen(self):
        return ('        _toil_wdl_internal__stdout, _toil_wdl_internal__stderr = run_call(%r, cmd, tempDir)\n'
                % str(self.runyard_task))

    def write_main_header(self):
        return ('if __name__=="__main__":\n'
                '    options = runyard_options(%r)\n'
                '    with Toil(options) as fileStore:\n' % self.jobstore)

    def write_main_jobwrappers(self):
        section = super().write_main_jobwrappers()
        if not section.endswith(ROOT_JOB_START):
            raise RuntimeError('this version of toil compiles WDL in a way Runyard does not know')
        # An if's body ends with its indentation (toil's indent()): cut, so that what follows is back at main's level.
        body = section[:-len(ROOT_JOB_START)].rstrip() + '\n'
        return body + self.write_outputs_job() + '\n        start_workflow(fileStore, job0)\n'

    def write_outputs_job(self):
        """After every call: a job that writes the workflow's outputs (toil leaves its output section out).

        Each output's expression (Python, as toil's analyzer translates it) names the calls' outputs;
        one that names nothing defined (a call inside an if that did not run) is null, as in WDL.
        """
        lines = ['        runyard_outputs = {}\n']
        for wf, body in self.workflows_dictionary.items():
            for name, _type, expr in body.get('wf_outputs', []):
                key = '%s.%s' % (wf, name)
                lines.append('        try:\n            runyard_outputs[%r] = %s\n' % (key, expr))
                lines.append('        except NameError:\n            runyard_outputs[%r] = None\n' % key)
        lines.append('        job0 = job0.encapsulate()\n')
        lines.append('        job0.addChildJobFn(write_outputs, runyard_outputs, %r)\n' % self.runyard_manifest)
        return ''.join(lines)


def compile_workflow(wdl_file, inputs_file, run_dir, outputs_dir, job_store):
    analyzer = get_analyzer(wdl_file=wdl_file)
    analyzer.analyze()
    synthesis = RunyardSynthesis(analyzer.version, analyzer.tasks_dictionary, analyzer.workflows_dictionary,
                                 outputs_dir, dict_from_JSON(inputs_file), 'None', job_store)
    synthesis.output_file = os.path.join(run_dir, 'toilwdl_compiled.py')
    # The workflow's outputs (every type), beside the File outputs, copied into the job's results with them.
    synthesis.runyard_manifest = os.path.join(outputs_dir, 'outputs.json')
    synthesis.write_python_file(synthesis.write_modules(), synthesis.write_functions(), synthesis.write_main(),
                                synthesis.output_file)
    return synthesis.output_file


def with_imports(wdl_file, imports_zip, src_dir):
    """The main file's directory with the imports zip's files added, in src_dir: imports resolve beside the main file."""
    if os.path.exists(src_dir):
        shutil.rmtree(src_dir)
    shutil.copytree(os.path.dirname(wdl_file), src_dir, symlinks=True)
    root = os.path.realpath(src_dir)
    with zipfile.ZipFile(imports_zip) as z:
        for member in z.infolist():
            target = os.path.realpath(os.path.join(src_dir, member.filename))
            if not target.startswith(root + os.sep):
                raise RuntimeError('the imports file has an entry outside its folder: %s' % member.filename)
            if not member.is_dir() and not os.path.exists(target):
                z.extract(member, src_dir)
    return os.path.join(src_dir, os.path.basename(wdl_file))


def copy_outputs(outputs_dir, results):
    os.makedirs(results, exist_ok=True)
    copied = 0
    for name in sorted(os.listdir(outputs_dir)):
        source = os.path.join(outputs_dir, name)
        if os.path.isfile(source) and not os.path.islink(source):
            shutil.copy2(source, os.path.join(results, name))
            copied += 1
    return copied


def relay_call_lines():
    """The calls run in toil's workers, whose own output toil keeps: they write their lines into a pipe
    of this process (RUNYARD_WDL_JOB_LOG, /proc/<pid>/fd/<n>: a pipe is the task's own, so it may open
    it), and a thread copies them into the job's log. Answers the function that ends it, once no
    worker is left."""
    r, w = os.pipe()
    os.environ['RUNYARD_WDL_JOB_LOG'] = '/proc/%d/fd/%d' % (os.getpid(), w)

    def copy():
        with os.fdopen(r, 'rb') as lines:
            for line in lines:
                sys.stdout.buffer.write(line)
                sys.stdout.flush()

    thread = threading.Thread(target=copy, daemon=True)
    thread.start()

    def end():
        os.close(w)
        thread.join(timeout=10)

    return end


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('wdl_file')
    parser.add_argument('inputs_file')
    parser.add_argument('--dir', required=True)
    parser.add_argument('--results', required=True)
    parser.add_argument('--imports', help='a zip of the files the workflow imports')
    args = parser.parse_args()
    run_dir = os.path.abspath(args.dir)
    outputs_dir = os.path.join(run_dir, 'outputs')
    job_store = os.path.join(run_dir, 'jobstore')
    os.makedirs(os.path.join(run_dir, 'tmp'), exist_ok=True)
    os.makedirs(outputs_dir, exist_ok=True)
    os.environ['RUNYARD_WDL_TOIL_WORK_DIR'] = os.path.join(run_dir, 'tmp')
    if os.environ.get('RUNYARD_WDL_RESTART') == '1' and not os.path.isdir(job_store):
        print('Runyard: there is no job store of an earlier run to restart from: the workflow runs from its start.', flush=True)
        os.environ['RUNYARD_WDL_RESTART'] = '0'
    if os.environ.get('RUNYARD_WDL_RESTART') != '1' and os.path.exists(job_store):
        # A run that started without finishing, its attempt lost: not resumable, so start again.
        shutil.rmtree(job_store)
    if os.environ.get('RUNYARD_WDL_RESTART') != '1':
        shutil.rmtree(outputs_dir)
        os.makedirs(outputs_dir)
    wdl_file = os.path.abspath(args.wdl_file)
    try:
        if args.imports:
            wdl_file = with_imports(wdl_file, args.imports, os.path.join(run_dir, 'src'))
        # The parser prints its version warnings on stdout: they are toil's, for engine.log.
        with contextlib.redirect_stdout(sys.stderr):
            compiled = compile_workflow(wdl_file, os.path.abspath(args.inputs_file), run_dir,
                                        outputs_dir, job_store)
    except Exception as e:  # the compiler's errors are the workflow's: say them as such
        write_failure('The WDL workflow could not be compiled by toil: %s' % e)
        raise
    print('Runyard: %s the workflow with toil (job store %s); toil\'s own log is %s in the job\'s logs' % (
        'restarting' if os.environ.get('RUNYARD_WDL_RESTART') == '1' else 'running', job_store, ENGINE_LOG), flush=True)
    relay = relay_call_lines()
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in (os.path.dirname(os.path.abspath(__file__)), env.get('PYTHONPATH')) if p)
    leader = subprocess.Popen([sys.executable, compiled], cwd=run_dir, env=env, stderr=subprocess.PIPE)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, _f: leader.send_signal(s))
    last_lines = deque(maxlen=40)
    for line in leader.stderr:
        sys.stderr.buffer.write(line)
        sys.stderr.flush()
        last_lines.append(line.decode('utf-8', 'replace').rstrip())
    rc = leader.wait()
    relay()
    copied = copy_outputs(outputs_dir, args.results)
    manifest = os.path.exists(os.path.join(outputs_dir, 'outputs.json'))
    print('Runyard: %d output file(s)%s copied to the job\'s results' % (copied - manifest, ' and outputs.json' if manifest else ''),
          flush=True)
    if rc != 0:
        print('Runyard: toil ended the workflow with code %d (its own log: %s)' % (rc, ENGINE_LOG), flush=True)
        errors = [l for l in last_lines if 'Error' in l or 'error' in l or 'Exception' in l]
        write_failure('toil ended the WDL workflow with code %d%s' % (rc, ': ' + errors[-1].strip() if errors else '.'))
        sys.exit(rc if rc > 0 else 1)


if __name__ == '__main__':
    main()
