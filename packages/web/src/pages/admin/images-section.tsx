import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { CachedImage, ImagePruneBody, ImagePruneReply } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { formatBytes } from '../data/format';
import { ConfirmAction } from '../jobs/confirm-action';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { RoleNeeded } from './role-needed';

/** The image cache of container jobs (the server host's): its images, total and limit; prune what no job uses. */
export function ImagesSection() {
  const access = useAdminAccess();
  return (
    <section aria-labelledby="images-title">
      <h2 id="images-title">Images</h2>
      {access.platformAdmin ? <ImageCache /> : <RoleNeeded need="platformAdmin" to="list or prune the image cache of container jobs" />}
    </section>
  );
}

function ImageCache() {
  const api = useApi();
  const queries = useQueryClient();
  const [done, setDone] = useState('');
  const listing = useQuery({ queryKey: adminKeys.images(), queryFn: () => api.admin.listImages(), placeholderData: keepPreviousData });
  const prune = useMutation({
    mutationFn: (body: ImagePruneBody) => api.admin.pruneImages(body),
    onSuccess: (result: ImagePruneReply) => {
      const freed = result.removed.reduce((sum, i) => sum + i.sizeBytes, 0);
      setDone(`Removed ${result.removed.length} image(s), ${formatBytes(freed)}.`);
      queries.setQueryData(adminKeys.images(), { images: result.images, totalBytes: result.totalBytes, limitBytes: result.limitBytes });
    },
  });
  const run = (body: ImagePruneBody) => {
    setDone('');
    prune.mutate(body);
  };
  if (listing.isPending) return <Loading what="the image cache" />;
  if (listing.isError) return <ErrorNotice error={listing.error} title="Could not list the image cache" />;
  const { images, totalBytes, limitBytes } = listing.data;
  return (
    <>
      <p className="muted">
        {images.length} image(s), {formatBytes(totalBytes)} of the limit {formatBytes(limitBytes)} (unpacked images; layers shared between
        images are not counted). After each pull the least recently used images no job uses are removed until the cache is under its limit.
      </p>
      <div className="actions">
        <ConfirmAction
          label="Prune beyond the limit"
          question="Remove the least recently used images no job uses until the cache is under its limit?"
          confirmLabel="Prune"
          busy={prune.isPending}
          onConfirm={() => run({})}
        />
        <ConfirmAction
          label="Prune all unused"
          question="Remove every image no job uses now? Jobs that need one pull it again."
          confirmLabel="Prune all unused"
          busy={prune.isPending}
          onConfirm={() => run({ all: true })}
        />
      </div>
      {done && <p role="status">{done}</p>}
      {prune.isError && <ErrorNotice error={prune.error} title="Not pruned" />}
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Cached images, least recently used first</caption>
          <thead>
            <tr>
              <th scope="col">Digest</th>
              <th scope="col">References</th>
              <th scope="col">Size</th>
              <th scope="col">Jobs using it</th>
              <th scope="col">Pulled</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {images.length === 0 && (
              <tr>
                <td colSpan={7} className="muted">
                  The cache holds no image.
                </td>
              </tr>
            )}
            {images.map((image) => (
              <ImageRow key={image.digest} image={image} busy={prune.isPending} onRemove={() => run({ digest: image.digest })} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function ImageRow({ image, busy, onRemove }: { image: CachedImage; busy: boolean; onRemove(): void }) {
  return (
    <tr>
      <td className="mono" title={image.digest}>
        {image.digest.slice(0, 19)}…
      </td>
      <td>
        {image.references.length ? (
          image.references.map((r) => (
            <div key={r} className="mono">
              {r}
            </div>
          ))
        ) : (
          <span className="muted">unknown</span>
        )}
      </td>
      <td>{formatBytes(image.sizeBytes)}</td>
      <td>{image.jobs}</td>
      <td>
        <Time iso={image.pulledAt} />
      </td>
      <td>
        <Time iso={image.lastUsedAt} />
      </td>
      <td>
        {image.jobs === 0 && (
          <ConfirmAction
            label="Remove"
            confirmLabel="Remove image"
            question={
              <>
                Remove the image <code>{image.digest}</code> from the cache? A job that needs it pulls it again.
              </>
            }
            busy={busy}
            onConfirm={onRemove}
          />
        )}
      </td>
    </tr>
  );
}
