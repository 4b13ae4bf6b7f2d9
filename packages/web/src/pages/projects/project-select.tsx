import { ErrorNotice } from '../../components/error-notice';
import { useAllProjects } from './use-projects';

/** A labelled choice of the workspace's projects, by id. */
export function ProjectSelect({
  id,
  value,
  onChange,
  label = 'Project',
  required,
}: {
  id: string;
  value: string;
  onChange(projectId: string): void;
  label?: string;
  required?: boolean;
}) {
  const projects = useAllProjects();
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <div>
        <select id={id} value={value} required={required} onChange={(e) => onChange(e.target.value)} disabled={!projects.data}>
          <option value="">{projects.isPending ? 'Loading projects…' : 'Choose a project'}</option>
          {projects.data?.map((p) => (
            <option key={p._id} value={p._id}>
              {p.name}
            </option>
          ))}
        </select>
        {projects.isError && <ErrorNotice error={projects.error} title="Projects" />}
        {projects.data?.length === 0 && <p className="muted">This workspace has no project yet: create one on the Projects page.</p>}
      </div>
    </>
  );
}
