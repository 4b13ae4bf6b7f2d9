/**
 * A stand-in for `java [-Dkey=value ...] -jar cromwell.jar server`, for the tests of the Cromwell
 * server that Runyard runs itself (RUNYARD_CROMWELL_JAR): neither a Cromwell jar nor a way to
 * build one is available here. The tests bundle this file (esbuild) into a program named `java`
 * on the task PATH, so that it runs where the real java would: in the task sandbox, seeing only
 * what the sandbox shows. It follows the real programs' contracts for what Runyard uses:
 *
 * - the java launcher: system properties `-Dkey=value` before `-jar`; `-X...` options taken;
 *   any other option before `-jar` is refused ("Unrecognized option"); a jar that cannot be read
 *   is "Error: Unable to access jarfile <jar>", one that is not a zip "Error: Invalid or corrupt
 *   jarfile <jar>", both exit 1; it exits 143 on SIGTERM (the JVM's shutdown hooks run first);
 * - Typesafe config (ConfigFactory.load): `-Dconfig.file` must exist
 *   (ConfigException$IO ... FileNotFoundException), and system properties override it; of the
 *   file, the HOCON that Cromwell configurations use for these keys is read (`a { b = c }`,
 *   `a.b: c`, quoted values, `#` and `//` comments; `include` lines are skipped);
 * - Cromwell (server/src/main/scala/cromwell/CommandLineParser.scala, CromwellServer.scala,
 *   core/src/main/resources/reference.conf): `server` is the only command taken here (`run` and
 *   `submit` are not this fixture's); `webservice.port` (8000) and `webservice.interface`
 *   (0.0.0.0) are where it listens, "Binding failed interface <i> port <p>" and exit 1 when it
 *   cannot; once bound it logs "Cromwell <version> service started on <host>:<port>...";
 *   `backend.providers.Local.config.root` (cromwell-executions, relative to the working
 *   directory) is where its Local backend runs calls; `call-caching.enabled` (false) turns call
 *   caching on; `workflow-options.workflow-log-dir` (cromwell-workflow-logs, relative to the
 *   working directory) is where each workflow's log is written, and
 *   `workflow-options.workflow-log-temporary` (true) deletes it when the workflow ends.
 *
 * Workflows run as in test/support/cromwell-fixture.ts. The "jar" given is also read for a line
 * `fixture.startDelayMs=<n>`, the only knob: how long workflows stay Submitted.
 */
import { mkdirSync, openSync, readFileSync, readSync, closeSync } from 'node:fs';
import path from 'node:path';
import { startCromwellFixture } from '../cromwell-fixture.js';

function fail(lines: string[], code = 1): never {
  process.stderr.write(lines.map((l) => `${l}\n`).join(''));
  process.exit(code);
}

const args = process.argv.slice(2);
const props = new Map<string, string>();
let i = 0;
for (; i < args.length && args[i] !== '-jar'; i++) {
  const arg = args[i]!;
  if (arg.startsWith('-D')) {
    const eq = arg.indexOf('=');
    props.set(eq < 0 ? arg.slice(2) : arg.slice(2, eq), eq < 0 ? '' : arg.slice(eq + 1));
  } else if (!arg.startsWith('-X')) {
    fail([
      `Unrecognized option: ${arg}`,
      'Error: Could not create the Java Virtual Machine.',
      'Error: A fatal exception has occurred. Program will exit.',
    ]);
  }
}
if (i >= args.length)
  fail([
    'Usage: java [options] <mainclass> [args...]',
    '           (to execute a class)',
    '   or  java [options] -jar <jarfile> [args...]',
  ]);
const jar = args[i + 1];
if (!jar) fail(['Error: -jar requires jar file specification']);

let magic = '';
let jarText = '';
try {
  const fd = openSync(jar, 'r');
  const head = Buffer.alloc(4);
  readSync(fd, head, 0, 4, 0);
  closeSync(fd);
  magic = head.toString('latin1');
  jarText = readFileSync(jar, 'latin1');
} catch {
  fail([`Error: Unable to access jarfile ${jar}`]);
}
if (magic !== 'PK\u0003\u0004') fail([`Error: Invalid or corrupt jarfile ${jar}`]);

const command = args[i + 2];
if (command !== 'server') {
  fail([
    'Usage: java -jar /path/to/cromwell.jar [server|run|submit] [options] <args>...',
    command === undefined ? '' : `(the test fixture only runs "server", not ${JSON.stringify(command)})`,
  ]);
}

/** The keys of a HOCON file, flattened (`a { b = c }` and `a.b = c` are both `a.b`), for the subset Cromwell configurations use here. */
function hoconKeys(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const scope: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)(#|\/\/).*$/, '').trim();
    if (!line || line.startsWith('include ')) continue;
    if (line === '}') {
      scope.pop();
      continue;
    }
    const open = /^([A-Za-z0-9_.-]+)\s*[:=]?\s*\{$/.exec(line);
    if (open) {
      scope.push(open[1]!);
      continue;
    }
    const pair = /^([A-Za-z0-9_."-]+)\s*[:=]\s*(.*?)\s*,?$/.exec(line);
    if (pair) out.set([...scope, pair[1]!.replace(/"/g, '')].join('.'), pair[2]!.replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

const configFile = props.get('config.file');
let fileKeys = new Map<string, string>();
if (configFile !== undefined) {
  try {
    fileKeys = hoconKeys(readFileSync(configFile, 'utf8'));
  } catch {
    fail([
      `Exception in thread "main" com.typesafe.config.ConfigException$IO: ${configFile}: java.io.FileNotFoundException: ${configFile} (No such file or directory)`,
    ]);
  }
}
/** A key of the configuration: the system property, else the file, else reference.conf's default. */
const setting = (key: string, fallback: string) => props.get(key) ?? fileKeys.get(key) ?? fallback;

const host = setting('webservice.interface', '0.0.0.0');
const port = Number(setting('webservice.port', '8000'));
const root = path.resolve(setting('backend.providers.Local.config.root', 'cromwell-executions'));
const workflowLogDir = setting('workflow-options.workflow-log-dir', 'cromwell-workflow-logs');
const delay = /^fixture\.startDelayMs=(\d+)$/m.exec(jarText);
mkdirSync(root, { recursive: true });

const log = (line: string) => process.stdout.write(`[${new Date().toISOString()}] [info] ${line}\n`);
log(`Cromwell fixture starting: Local backend root ${root}`);
startCromwellFixture({
  root,
  host,
  port,
  ...(delay && { startDelayMs: Number(delay[1]) }),
  callCaching: setting('call-caching.enabled', 'false') === 'true',
  // An empty workflow-log-dir turns the workflow logs off (WorkflowLogger.workflowLogConfiguration).
  ...(workflowLogDir && { workflowLogDir: path.resolve(workflowLogDir) }),
  workflowLogTemporary: setting('workflow-options.workflow-log-temporary', 'true') !== 'false',
}).then(
  (fixture) => {
    log(`Cromwell fixture service started on ${host}:${port}...`);
    const shutdown = () => {
      log('Received SIGTERM: shutting down');
      void fixture.close().then(() => process.exit(143));
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  },
  (e: unknown) => {
    fail([`Binding failed interface ${host} port ${port}`, String((e as Error).message)]);
  },
);
