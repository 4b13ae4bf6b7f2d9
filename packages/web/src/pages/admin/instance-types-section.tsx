import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });

/** The instance-type catalogue jobs may ask for: size and hourly price (what the launch form's estimate uses). */
export function InstanceTypesSection() {
  const api = useApi();
  const { workspaceId } = useAdminAccess();
  const types = useQuery({
    queryKey: adminKeys.instanceTypes(workspaceId),
    queryFn: () => api.getInstanceTypes(workspaceId),
    placeholderData: keepPreviousData,
    staleTime: 5 * 60_000,
  });
  return (
    <section aria-labelledby="types-title">
      <h2 id="types-title">Instance types</h2>
      {types.isPending ? (
        <Loading what="instance types" />
      ) : types.isError ? (
        <ErrorNotice error={types.error} title="Could not list the instance types" />
      ) : (
        <>
          <p className="muted">
            A job that names no type gets <code>{types.data.defaultInstanceType}</code>. Prices are on-demand, per hour, in US dollars.
          </p>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Instance types</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Provider</th>
                  <th scope="col" className="num">
                    CPUs
                  </th>
                  <th scope="col" className="num">
                    Memory
                  </th>
                  <th scope="col" className="num">
                    Price per hour
                  </th>
                  <th scope="col">Price of</th>
                </tr>
              </thead>
              <tbody>
                {types.data.instanceTypes.map((t) => (
                  <tr key={t.name}>
                    <td className="admin-name">
                      <code>{t.name}</code>
                      {t.name === types.data.defaultInstanceType && <span className="muted"> (default)</span>}
                    </td>
                    <td>{t.provider}</td>
                    <td className="num">{t.vcpus}</td>
                    <td className="num">{t.memoryGiB} GiB</td>
                    <td className="num">{usd.format(t.pricePerHourUsd)}</td>
                    <td>{t.priceDate}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
