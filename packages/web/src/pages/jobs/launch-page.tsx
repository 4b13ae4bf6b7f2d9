import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import type { Workflow, WorkflowType } from '@runyard/client/core';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { PageHeader } from '../../components/page-header';
import { firstType, InstanceTypeSelect } from './instance-type-select';
import { LaunchCost } from './launch-cost';
import { hasRole } from './job-permissions';
import { ParameterRows, parameterStrings, type ParameterRow } from './parameter-rows';
import { RevisionFields, revisionOptions, type Revision } from './revision-fields';
import { useInstanceTypes, useProjects, useQueues, useWorkflows } from './use-workspace-lists';
import './jobs.css';

const TYPE_GROUPS: Array<{ type: string; label: string }> = [
  { type: 'nextflow', label: 'Nextflow' },
  { type: 'docker', label: 'Container (bash)' },
  { type: 'wdl', label: 'WDL' },
];

/**
 * Runs a workflow: the form of `runyard job run` (and `runyard bash job` for a container workflow),
 * submitted with the SDK's sendJob; the estimated cost per hour shows before anything is launched.
 * `?project=&workflow=` (names) preselect. A refused launch shows the server's message and changes nothing.
 */
export function LaunchPage() {
  // A new workspace is a new form (its projects and workflows differ).
  const { workspaceId } = useWorkspace();
  return <LaunchForm key={workspaceId} />;
}

function LaunchForm() {
  const api = useApi();
  const navigate = useNavigate();
  const id = useId();
  const [search] = useSearchParams();
  const { workspaceId, workspaceName, role } = useWorkspace();
  const projects = useProjects(workspaceId);
  const workflows = useWorkflows(workspaceId);
  const queues = useQueues(workspaceId);
  const types = useInstanceTypes(workspaceId);

  const [project, setProject] = useState(search.get('project') ?? '');
  // null until a workflow is chosen in the form (the URL's then applies).
  const [workflowId, setWorkflowId] = useState<string | null>(null);
  const [revision, setRevision] = useState<Revision>({ kind: 'default', value: '' });
  const [rows, setRows] = useState<ParameterRow[]>([]);
  const [command, setCommand] = useState('');
  const [queue, setQueue] = useState('');
  const [instanceType, setInstanceType] = useState('');
  const [cpus, setCpus] = useState('1');
  const [memory, setMemory] = useState('4');
  const [costLimit, setCostLimit] = useState('30');
  const [resumable, setResumable] = useState(false);
  const [jobName, setJobName] = useState('new_job');

  // The workflow named in the URL, once the list is there (the newest of a duplicated name).
  const named = search.get('workflow');
  const workflow: Workflow | undefined =
    workflowId === null
      ? [...(workflows.data ?? [])].reverse().find((w) => w.name === named)
      : workflows.data?.find((w) => w._id === workflowId);
  const docker = workflow?.workflowType === 'docker';
  const nextflow = workflow?.workflowType === 'nextflow';
  const chosenType = firstType(instanceType, types.data);
  const typeEntry = types.data?.instanceTypes.find((t) => t.name === chosenType);
  const canLaunch = hasRole(role, 'member');

  const pickWorkflow = (wfId: string) => {
    const wf = workflows.data?.find((w) => w._id === wfId);
    setWorkflowId(wfId);
    setRevision({ kind: 'default', value: '' });
    setCommand(wf?.defaultCommand ?? '');
  };

  const launch = useMutation({
    mutationFn: () => {
      const wf = workflow!;
      return api.sendJob({
        workspaceId,
        projectName: project,
        workflowName: wf.name,
        workflowType: wf.workflowType as WorkflowType,
        isModule: wf.isModule,
        last: true,
        ...(wf.repository && { repositoryPlatform: wf.repository.platform }),
        ...(wf.workflowType === 'wdl' && wf.mainFile && { mainfile: wf.mainFile }),
        ...revisionOptions(revision),
        parameters: parameterStrings(rows),
        jobName: jobName.trim(),
        ...(docker ? { command, cpus: Number(cpus), memory: Number(memory) } : { resumable }),
        jobQueue: queue || undefined,
        instanceType: chosenType || undefined,
        costLimit: Number(costLimit),
      });
    },
    onSuccess: (jobId) => navigate(paths.job(jobId)),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (workflow && project) launch.mutate();
  };
  const listError = projects.error ?? workflows.error ?? queues.error ?? types.error;

  return (
    <>
      <PageHeader title="Launch a job">
        <p className="muted">Runs a workflow in workspace {workspaceName}.</p>
      </PageHeader>
      {!canLaunch && (
        <p className="notice" role="status">
          You are a {role} in this workspace: launching jobs needs the member role.
        </p>
      )}
      {listError && <ErrorNotice error={listError} title="Could not read the choices" />}
      <form className="card jobs-launch" onSubmit={submit} aria-label="Launch a job">
        <div className="form-grid">
          <label htmlFor={`${id}-project`}>Project</label>
          <select id={`${id}-project`} value={project} onChange={(e) => setProject(e.target.value)} required>
            <option value="">Choose a project</option>
            {projects.data?.map((p) => (
              <option key={p._id} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>

          <label htmlFor={`${id}-workflow`}>Workflow</label>
          <select id={`${id}-workflow`} value={workflow?._id ?? ''} onChange={(e) => pickWorkflow(e.target.value)} required>
            <option value="">Choose a workflow</option>
            {TYPE_GROUPS.map((g) => {
              const group = workflows.data?.filter((w) => w.workflowType === g.type) ?? [];
              return group.length ? (
                <optgroup key={g.type} label={g.label}>
                  {group.map((w) => (
                    <option key={w._id} value={w._id}>
                      {w.name}
                    </option>
                  ))}
                </optgroup>
              ) : null;
            })}
          </select>

          <label htmlFor={`${id}-name`}>Job name</label>
          <input id={`${id}-name`} value={jobName} onChange={(e) => setJobName(e.target.value)} required maxLength={200} />

          {docker && (
            <>
              <label htmlFor={`${id}-command`}>Command</label>
              <textarea
                id={`${id}-command`}
                className="mono"
                rows={4}
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                required
                maxLength={65536}
              />
              <label htmlFor={`${id}-cpus`}>CPUs</label>
              <input
                id={`${id}-cpus`}
                type="number"
                min={1}
                max={1024}
                step={1}
                value={cpus}
                onChange={(e) => setCpus(e.target.value)}
                required
              />
              <label htmlFor={`${id}-memory`}>Memory (GiB)</label>
              <input
                id={`${id}-memory`}
                type="number"
                min={0.1}
                step="any"
                value={memory}
                onChange={(e) => setMemory(e.target.value)}
                required
              />
            </>
          )}

          <label htmlFor={`${id}-queue`}>Queue</label>
          <select id={`${id}-queue`} value={queue} onChange={(e) => setQueue(e.target.value)}>
            <option value="">{docker ? 'None (run without a queue)' : 'The default queue'}</option>
            {queues.data?.map((q) => (
              <option key={q.id} value={q.label || q.name}>
                {q.label || q.name}
                {q.isDefault ? ' (default)' : ''}
              </option>
            ))}
          </select>

          <label htmlFor={`${id}-type`}>Instance type</label>
          <InstanceTypeSelect
            id={`${id}-type`}
            types={types.data?.instanceTypes ?? []}
            local={types.data?.localExecutor}
            value={chosenType}
            onChange={setInstanceType}
          />

          <label htmlFor={`${id}-limit`}>Cost limit (dollars, -1 for none)</label>
          <input
            id={`${id}-limit`}
            type="number"
            min={-1}
            step="any"
            value={costLimit}
            onChange={(e) => setCostLimit(e.target.value)}
            required
          />

          {nextflow && (
            <>
              <span />
              <label className="check">
                <input type="checkbox" checked={resumable} onChange={(e) => setResumable(e.target.checked)} />
                <span>Resumable (keep the work directory so that a failed run can be resumed)</span>
              </label>
            </>
          )}
        </div>

        {workflow?.repository && <RevisionFields workspaceId={workspaceId} workflow={workflow} value={revision} onChange={setRevision} />}
        <ParameterRows legend="Parameters" rows={rows} onChange={setRows} />

        <LaunchCost type={typeEntry} costLimit={Number(costLimit)} />
        {launch.error !== null && <ErrorNotice error={launch.error} title="The job was not launched" />}
        <div className="actions">
          <button type="submit" disabled={!canLaunch || launch.isPending || !workflow}>
            {launch.isPending ? 'Launching…' : 'Launch'}
          </button>
        </div>
      </form>
    </>
  );
}
