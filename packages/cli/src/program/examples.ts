/** One example of a help page: a comment saying what it does, then the command line. */
export interface Example {
  what: string;
  run: string;
}

const JOB = '6630f1c2a9e4b5d6e7f80912';
const JOB2 = '6630f1c2a9e4b5d6e7f80913';
const WS = '6630f0aa11223344556677ff';
const USER = '6630f0bb99887766554433ee';
const KEY = '6630f0cc0011223344556677';
const HPC = '6630f0dd5566778899aabbcc';
const SESSION = '6630f0ee0123456789abcdef';

const ex = (what: string, run: string): Example => ({ what, run: `runyard ${run}` });
/** A shell line that is not a runyard command line. */
const shell = (what: string, run: string): Example => ({ what, run });

/** The Examples section of every command, by its path below `runyard` ('' is runyard itself). */
export const EXAMPLES: Record<string, Example[]> = {
  '': [
    ex('save the server URL, workspace and API key once', 'configure'),
    ex('list the projects of the workspace', 'project list'),
    ex('connection options go before or after the command', '--profile work job list'),
  ],
  configure: [
    ex('asks for the platform URL, the workspace id and the API key, and checks them', 'configure'),
    ex('also asks for the default project, workflow and platforms', 'configure --advanced'),
    ex('without questions', `configure --platform-url http://127.0.0.1:8080 --workspace-id ${WS} --apikey KEY`),
    ex('a second profile, made the default', 'configure --profile work --make-default'),
  ],
  'configure list-profiles': [ex('the profiles; the default one is marked', 'configure list-profiles')],
  'configure remove-profile': [ex('remove the profile "work"', 'configure remove-profile --profile work')],
  project: [ex('create a project, then list them', 'project create --new-project demo'), ex('', 'project list')],
  'project create': [ex('create the project "demo"; its id is printed', 'project create --new-project demo')],
  'project list': [ex('a table', 'project list'), ex('write projects.csv', 'project list --output-format csv --output-basename projects')],
  workflow: [
    ex(
      'import a Nextflow workflow from GitHub',
      'workflow import --workflow-url https://github.com/nextflow-io/rnatoy --workflow-name rnatoy',
    ),
  ],
  'workflow list': [ex('the workflows of the workspace', 'workflow list'), ex('as JSON', 'workflow list --output-format json')],
  'workflow import': [
    ex('import from GitHub', 'workflow import --workflow-url https://github.com/nextflow-io/rnatoy --workflow-name rnatoy'),
  ],
  'workflow create-docker': [
    ex('a container workflow for bash jobs', 'workflow create-docker --workflow-name ubuntu --container-name library/ubuntu:22.04'),
  ],
  'workflow branches': [ex('the branches of the repository of "rnatoy"', 'workflow branches --workflow-name rnatoy')],
  'workflow archive': [ex('hide "rnatoy" from "workflow list"', 'workflow archive --workflow-name rnatoy')],
  'workflow unarchive': [ex('show "rnatoy" again', 'workflow unarchive --workflow-name rnatoy')],
  job: [
    ex('launch a workflow and wait for it', 'job run --project-name demo --workflow-name rnatoy --wait-completion'),
    ex('the newest jobs', 'job list'),
  ],
  'job run': [
    ex('launch "rnatoy" with a parameter', "job run --project-name demo --workflow-name rnatoy -p 'reads=s3://bucket/reads/*.fq'"),
    ex('a branch, waiting until it finishes', 'job run --project-name demo --workflow-name rnatoy --git-branch dev --wait-completion'),
    ex('on an HPC cluster', `job run --project-name demo --workflow-name rnatoy --execution-platform hpc --hpc-id ${HPC}`),
  ],
  'job status': [
    ex('prints the status, e.g. completed', `job status --job-id ${JOB}`),
    ex('as JSON', `job status --job-id ${JOB} --output-format json`),
  ],
  'job details': [
    ex('a table of the fields of the job', `job details --job-id ${JOB}`),
    ex('the whole job document', `job details --job-id ${JOB} --output-format json`),
  ],
  'job list': [
    ex('the 10 newest jobs', 'job list'),
    ex('the failed jobs of a project', 'job list --filter-status failed --filter-project demo'),
    ex('every job, as CSV', 'job list --last-n-jobs all --output-format csv'),
  ],
  'job abort': [ex('abort two jobs', `job abort --job-ids ${JOB},${JOB2}`)],
  'job archive': [ex('archive a job', `job archive --job-ids ${JOB}`)],
  'job unarchive': [ex('unarchive a job', `job unarchive --job-ids ${JOB}`)],
  'job clone': [ex('run a job again on another branch', `job clone --job-id ${JOB} --git-branch dev`)],
  'job resume': [ex("continue a resumable job's work", `job resume --job-id ${JOB}`)],
  'job logs': [
    ex('the URLs of the log files', `job logs --job-id ${JOB}`),
    ex('the output as the job writes it, until it ends (exit 0 only if it completed)', `job logs --job-id ${JOB} --follow`),
    ex('the last 20 lines of the output, then what follows', `job logs --job-id ${JOB} --tail 20 --follow`),
    ex('link the logs folder into a running interactive session', `job logs --job-id ${JOB} --link --session-id ${SESSION}`),
  ],
  'job results': [
    ex('the URL of the results', `job results --job-id ${JOB}`),
    ex('copy them into ./results (again: only what is missing)', `job results --job-id ${JOB} --download results`),
    ex('delete them without asking', `job results --job-id ${JOB} --delete --yes`),
    ex('link them into a running interactive session', `job results --job-id ${JOB} --link --session-id ${SESSION}`),
  ],
  'job workdir': [
    ex('the URL of the working directory', `job workdir --job-id ${JOB}`),
    ex('whether its deletion is done', `job workdir --job-id ${JOB} --status`),
    ex('link it into a running interactive session', `job workdir --job-id ${JOB} --link --session-id ${SESSION}`),
  ],
  'job related': [ex('the jobs sharing its working directory', `job related --job-id ${JOB}`)],
  'job cost': [
    ex('what a job cost: its instance type, hourly price and total, in dollars', `job cost --job-id ${JOB}`),
    ex('the same as JSON, written to costs.json', `job cost --job-id ${JOB} --output-format json --output-basename costs`),
  ],
  bash: [
    ex('run a command in the container workflow "ubuntu"', "bash job --project-name demo --workflow-name ubuntu --command 'uname -a'"),
  ],
  'bash job': [
    ex('run a command and wait for it', "bash job --project-name demo --workflow-name ubuntu --command 'uname -a' --wait-completion"),
    ex(
      'parameters reach the command as arguments and RUNYARD_PARAM_*',
      "bash job --workflow-name ubuntu --command 'echo $RUNYARD_PARAM_NAME' -p --name=world",
    ),
    ex('on an HPC cluster', `bash job --workflow-name ubuntu --command hostname --execution-platform hpc --hpc-id ${HPC}`),
  ],
  'datasets download': [
    ex('a file into the current directory', 'datasets download --project-name demo Data/samples.csv'),
    ex('a folder with its tree into ./downloads', 'datasets download --project-name demo "Analyses Results/run-1" downloads'),
  ],
  'datasets link': [
    ex(
      'a results folder into a running interactive session',
      `datasets link --project-name demo "Analyses Results/run-1" --session-id ${SESSION}`,
    ),
    ex('a storage folder', `datasets link s3://bucket/data/ --session-id ${SESSION}`),
  ],
  user: [ex('link your Docker Hub account (the token from stdin)', 'user docker-login --registry docker.io --username me < token.txt')],
  'user docker-login': [
    ex('link your Docker Hub account (the token from stdin)', 'user docker-login --registry docker.io --username me < token.txt'),
    shell('a GitHub container registry token', 'echo "$GHCR_TOKEN" | runyard user docker-login --registry ghcr.io --username me'),
  ],
  'user docker-logout': [ex('unlink it', 'user docker-logout --registry docker.io')],
  'bash array-job': [
    ex('the columns of an array file', 'bash array-job --project-name demo --array-file Data/samples.csv --list-columns'),
    ex(
      'one task per row: --sample takes the row\'s value of the column "id"',
      "bash array-job --project-name demo --workflow-name ubuntu --array-file Data/samples.csv --command 'echo $1 $2' -a --sample=id",
    ),
    ex(
      'a tab-separated file, and a script from the File Explorer',
      'bash array-job --workflow-name ubuntu --array-file Data/samples.tsv --separator tab --custom-script-path Data/run.sh -a --sample=id',
    ),
  ],
  cromwell: [ex("start the workspace's WDL engine server, then check it", 'cromwell start'), ex('', 'cromwell status')],
  'cromwell status': [
    ex('prints the status, e.g. Running', 'cromwell status'),
    ex('with the engine token instead of the API key, as JSON', 'cromwell status -t ENGINE_TOKEN --output-format json'),
  ],
  'cromwell start': [
    ex('start it and wait (up to 300 s) until it runs', 'cromwell start'),
    ex('wait at most a minute', 'cromwell start --wait-time 60'),
  ],
  'cromwell restart': [ex('check its engine anew and wait until it runs', 'cromwell restart')],
  'cromwell stop': [ex('stop it: running WDL jobs finish, new ones are refused', 'cromwell stop')],
  'interactive-session': [
    ex(
      'start a Jupyter session, wait until it runs, and open it in the browser',
      'interactive-session create --name nb --session-type jupyter --watch',
    ),
    ex('', `interactive-session open ${SESSION} --web`),
  ],
  link: [
    ex("a job's results, working directory and logs, into a running session", `link --job-id ${JOB} --session-id ${SESSION}`),
    ex(
      'two folders: one of storage, one of the File Explorer of project "demo"',
      `link s3://bucket/data/,demo/Data/reads --session-id ${SESSION}`,
    ),
  ],
  'interactive-session list': [
    ex('the 10 newest sessions', 'interactive-session list'),
    ex('your running sessions, as JSON', 'interactive-session list --filter-status running --filter-only-mine --output-format json'),
  ],
  'interactive-session create': [
    ex(
      'a Jupyter session of project "demo"; its id is printed',
      'interactive-session create --project-name demo --name nb --session-type jupyter',
    ),
    ex(
      'shared with the workspace, stopped after 8 hours or $5, waiting until it runs',
      'interactive-session create --name nb --session-type jupyter --shared --shutdown-in 8h --cost-limit 5 --watch',
    ),
  ],
  'interactive-session status': [
    ex('its status and configuration', `interactive-session status ${SESSION}`),
    ex('wait until it runs, checking every 2 seconds', `interactive-session status ${SESSION} --watch --watch-interval 2`),
  ],
  'interactive-session pause': [
    ex('save its home and pause it, without asking', `interactive-session pause ${SESSION} -y --wait`),
    ex('stop it at once, saving nothing', `interactive-session pause ${SESSION} --force`),
  ],
  'interactive-session resume': [
    ex('resume it from its saved home and wait until it runs', `interactive-session resume ${SESSION} --watch`),
    ex('on a larger instance, for 2 more days', `interactive-session resume ${SESSION} --instance c5.2xlarge --shutdown-in 2d`),
  ],
  'interactive-session open': [
    ex('print the URL of its web UI (it works once, within a minute)', `interactive-session open ${SESSION}`),
    ex('open it in the browser', `interactive-session open ${SESSION} --web`),
  ],
  queue: [ex('the job queues of the workspace', 'queue list')],
  'queue list': [ex('the job queues of the workspace', 'queue list')],
  'instance-types': [ex('the instance types jobs may ask for, with their price', 'instance-types list')],
  'instance-types list': [ex('the instance types jobs may ask for, as CSV', 'instance-types list --output-format csv')],
  'queue create': [
    ex('a queue that runs two jobs at a time', 'queue create --name small --concurrency 2'),
    ex('a queue whose jobs run in the long partition of an HPC cluster', `queue create --name long --hpc-id ${HPC} --partition long`),
  ],
  datasets: [ex('what is in Data', 'datasets ls Data --project-name demo')],
  'datasets ls': [
    ex('the datasets of the project', 'datasets ls --project-name demo'),
    ex('with type, owner, size and storage path', 'datasets ls Data --project-name demo --details'),
  ],
  'datasets mv': [ex('move a file into another folder', 'datasets mv Data/a/file.txt Data/b --project-name demo')],
  'datasets rename': [ex('rename a file', 'datasets rename Data/a/old.txt new.txt --project-name demo')],
  'datasets cp': [ex('copy a result into Data', `datasets cp "AnalysesResults/${JOB}/plot.png" Data --project-name demo`)],
  'datasets mkdir': [ex('a virtual folder in Data', 'datasets mkdir Data/inputs --project-name demo')],
  'datasets rm': [ex('delete a file', 'datasets rm Data/inputs/old.csv --project-name demo')],
  'datasets upload': [ex('upload a local file into Data', 'datasets upload ./samples.csv Data --project-name demo')],
  storage: [ex('the top level of a bucket', 'storage ls s3://my-bucket/')],
  'storage ls': [ex('one level of a bucket', 'storage ls s3://my-bucket/data/')],
  admin: [ex('a user with a key', 'admin user create --username ada --email ada@example.org')],
  'admin user': [ex('every user', 'admin user list')],
  'admin user create': [ex('create a user; their id is printed', 'admin user create --username ada --email ada@example.org')],
  'admin user list': [ex('every user', 'admin user list')],
  'admin user revoke': [ex('deactivate a user', `admin user revoke --user-id ${USER}`)],
  'admin workspace': [ex('every workspace', 'admin workspace list')],
  'admin workspace create': [ex('a workspace owned by a user', `admin workspace create --name lab --owner-id ${USER}`)],
  'admin workspace list': [ex('every workspace', 'admin workspace list')],
  'admin workspace set-engine': [
    ex('WDL jobs of the workspace run on toil-wdl-runner', `admin workspace set-engine --workspace-id ${WS} --driver toil`),
    ex(
      'on a Cromwell server',
      `admin workspace set-engine --workspace-id ${WS} --driver cromwell --cromwell-url http://cromwell.example.org:8000`,
    ),
  ],
  'admin engine-token': [ex("the workspace's engine token", 'admin engine-token show')],
  'admin engine-token show': [
    ex("the workspace's engine token", 'admin engine-token show'),
    shell('use it instead of the API key', 'runyard cromwell status -t "$(runyard admin engine-token show)"'),
  ],
  'admin engine-token rotate': [ex('a new token; the old one stops working', 'admin engine-token rotate')],
  'admin member': [ex('the members of a workspace', `admin member list --workspace-id ${WS}`)],
  'admin member create': [ex('add a user as a viewer', `admin member create --workspace-id ${WS} --user-id ${USER} --role viewer`)],
  'admin member list': [ex('the members of a workspace', `admin member list --workspace-id ${WS}`)],
  'admin member revoke': [ex('remove a user from a workspace', `admin member revoke --workspace-id ${WS} --user-id ${USER}`)],
  'admin apikey': [ex("a user's keys", `admin apikey list --user-id ${USER}`)],
  'admin apikey create': [ex('a key for a user; shown once', `admin apikey create --user-id ${USER} --name laptop`)],
  'admin apikey list': [ex("a user's keys", `admin apikey list --user-id ${USER}`)],
  'admin apikey revoke': [ex('revoke a key', `admin apikey revoke --key-id ${KEY}`)],
  'admin hpc': [ex('the registered HPC clusters', 'admin hpc list')],
  'admin hpc create': [
    ex(
      'a Slurm cluster with two partitions (the first is the default); its id is printed',
      'admin hpc create --name hpc1 --partition short --partition long --shared-directory /shared/runyard',
    ),
    ex(
      'Slurm commands run on a login node over ssh, one argument per --submit-prefix',
      'admin hpc create --name hpc2 --partition batch --shared-directory /shared/runyard --submit-prefix ssh --submit-prefix login1',
    ),
  ],
  'admin hpc list': [ex('the registered HPC clusters', 'admin hpc list'), ex('as JSON', 'admin hpc list --output-format json')],
  'admin images': [ex('the cached images, their sizes and the jobs using them', 'admin images list')],
  'admin images list': [
    ex('the cached images, their sizes and the jobs using them', 'admin images list'),
    ex('as JSON', 'admin images list --output-format json'),
  ],
  'admin images prune': [
    ex('the unused images beyond the cache limit', 'admin images prune'),
    ex('every image no job uses', 'admin images prune --all'),
    ex('one image', 'admin images prune --digest sha256:0123...'),
  ],
  server: [ex('run the platform on port 8080', 'server start')],
  'server start': [
    ex('on http://127.0.0.1:8080, data in ./.runyard-data', 'server start'),
    ex('reachable from other machines, on another port', 'server start --host 0.0.0.0 --port 9000'),
  ],
  completion: [
    shell('bash: complete runyard in every new shell', "echo 'source <(runyard completion bash)' >> ~/.bashrc"),
    ex('zsh', 'completion zsh > "${fpath[1]}/_runyard"'),
    ex('fish', 'completion fish > ~/.config/fish/completions/runyard.fish'),
  ],
  help: [ex("the help of 'job run'", 'help job run')],
};
