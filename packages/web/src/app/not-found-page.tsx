import { Link } from 'react-router';
import { paths } from './paths';

export function NotFoundPage() {
  return (
    <section aria-labelledby="nf-title">
      <h1 id="nf-title">Page not found</h1>
      <p>
        There is no page here. Go to the <Link to={paths.jobs}>jobs</Link>.
      </p>
    </section>
  );
}
