import { Link } from 'react-router';

/** Where one is, each level a link back up; the last is the current page (aria-current). */
export function Breadcrumb({
  label,
  root,
  segments,
  hrefFor,
}: {
  label: string;
  root: string;
  segments: string[];
  hrefFor(segments: string[]): string;
}) {
  const crumbs = [{ name: root, to: hrefFor([]) }, ...segments.map((name, i) => ({ name, to: hrefFor(segments.slice(0, i + 1)) }))];
  return (
    <nav aria-label={label} className="breadcrumb">
      <ol>
        {crumbs.map((c, i) => (
          <li key={c.to}>{i === crumbs.length - 1 ? <span aria-current="page">{c.name}</span> : <Link to={c.to}>{c.name}</Link>}</li>
        ))}
      </ol>
    </nav>
  );
}
