import { Time } from '../../components/time';
import { isFinished } from './job-format';
import type { JobView } from './job-view';

/** The job's course from its document's times: submitted, started, ended (each step done or still to come). */
export function JobTimeline({ job }: { job: JobView }) {
  const finished = isFinished(job.status);
  const steps = [
    { label: 'Submitted', at: job.createdAt, done: Boolean(job.createdAt) },
    {
      label: 'Started',
      at: job.startTime,
      done: Boolean(job.startTime),
      note: !job.startTime && !finished ? `waiting (${job.status})` : undefined,
    },
    {
      label: finished ? `Ended: ${job.status}` : 'Ends',
      at: job.endTime ?? (finished ? job.updatedAt : null),
      done: finished,
      note: finished ? undefined : job.startTime ? `${job.status}…` : undefined,
    },
  ];
  return (
    <ol className="timeline" aria-label="Status timeline">
      {steps.map((s) => (
        <li
          key={s.label}
          className={s.done ? (s.label.startsWith('Ended') && job.status !== 'completed' ? 'done ended-badly' : 'done') : 'pending'}
        >
          <span className="timeline-label">{s.label}</span>{' '}
          {s.done ? <Time iso={s.at} /> : <span className="muted">{s.note ?? 'not yet'}</span>}
        </li>
      ))}
    </ol>
  );
}
