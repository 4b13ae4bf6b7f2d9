import { PageHeader } from '../../components/page-header';

// Placeholder: this page is being built.
export function JobListPage() {
  return <PageHeader title="Jobs" />;
}
