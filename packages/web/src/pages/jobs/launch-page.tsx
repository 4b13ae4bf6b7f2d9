import { PageHeader } from '../../components/page-header';

// Placeholder: this page is being built.
export function LaunchPage() {
  return <PageHeader title="Launch a job" />;
}
