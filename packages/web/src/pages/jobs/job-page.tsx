import { PageHeader } from '../../components/page-header';

// Placeholder: this page is being built.
export function JobPage() {
  return <PageHeader title="Job" />;
}
