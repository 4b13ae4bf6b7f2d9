import { needName, useAdminAccess, type Need } from './admin-access';

/** Said instead of a control (or a whole section) the signed-in person may not use: which role it needs, and who has it. */
export function RoleNeeded({ need, to }: { need: Need; to: string }) {
  const { role, workspaceName } = useAdminAccess();
  const where = need === 'platformAdmin' ? '' : ` in the workspace ${workspaceName}`;
  const youAre = need === 'platformAdmin' ? '' : ` You are ${article(role)} ${role} there.`;
  return (
    <p className="notice admin-role-needed">
      You need the {needName(need)} role{where} to {to}.{youAre}{' '}
      {need === 'platformAdmin' ? 'Ask a platform administrator.' : 'Ask an admin or owner of the workspace.'}
    </p>
  );
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');
