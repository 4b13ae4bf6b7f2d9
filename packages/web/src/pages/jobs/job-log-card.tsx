import { useState } from 'react';
import { ErrorNotice } from '../../components/error-notice';
import { EngineLog } from './engine-log';
import type { JobView } from './job-view';
import { LiveLog } from './live-log';
import { Segmented, type Segment } from './segmented';
import type { JobLog } from './use-job-log';
import { ENGINE_LOG, useJobLogFiles } from './use-log-file';

type Which = 'job' | 'engine';
const WHICH: ReadonlyArray<Segment<Which>> = [
  { value: 'job', label: 'Job log' },
  { value: 'engine', label: 'Engine log' },
];

/**
 * The Log card: the live job log, and, when the job's logs folder holds engine.log (a WDL job's
 * engine writes its own diagnostics there), a choice of that one instead. `log` is followed by the
 * page, so that the job log goes on while the engine log is shown.
 */
export function JobLogCard({ job, log }: { job: JobView; log: JobLog }) {
  const files = useJobLogFiles(job);
  const engineLog = files.data?.find((f) => f.name === ENGINE_LOG);
  const [which, setWhich] = useState<Which>('job');

  return (
    <section className="card" aria-labelledby="job-log-title">
      <h2 id="job-log-title">Log</h2>
      {engineLog && <Segmented label="Which log" segments={WHICH} value={which} onChange={setWhich} />}
      {files.error !== null && <ErrorNotice error={files.error} title="Could not list the job's log files" />}
      {engineLog && which === 'engine' ? <EngineLog job={job} file={engineLog} /> : <LiveLog log={log} />}
    </section>
  );
}
