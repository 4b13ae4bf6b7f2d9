import type { BranchesReply } from '@runyard/client/core';

/** Branches with their commit, the default one marked. */
export function BranchList({ reply, defaultBranch, label }: { reply: BranchesReply; defaultBranch?: string | null; label: string }) {
  if (!reply.branches.length) return <p className="muted">No branches.</p>;
  return (
    <ul className="branch-list" aria-label={label}>
      {reply.branches.map((b) => (
        <li key={b.name}>
          <code>{b.name}</code> <span className="muted mono">{b.commit.sha.slice(0, 10)}</span>
          {b.name === defaultBranch && <span className="muted"> (default)</span>}
        </li>
      ))}
    </ul>
  );
}
