import { PageHeader } from '../../components/page-header';

// Placeholder: this page is being built.
export function AdminPage() {
  return <PageHeader title="Administration" />;
}
