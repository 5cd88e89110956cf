import type { LivestreamLink, LivestreamLinkSiteViews } from '@farmcam/contract';
import { formatUkDate, livestreamLinkLimits } from '@farmcam/contract/rules';
import { Fragment, useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { DateField, unfinishedDate } from '../../../components/ui/date-field.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  useCreateLivestreamLink,
  useLivestreamLinks,
  useReissueLivestreamLink,
  useRevokeLivestreamLink,
} from '../api/public-links.ts';
import { useTemporaryLabel } from './use-temporary-label.ts';
import styles from './public-links.module.css';

/** The last day a link works (it stops at the end of that UK day). */
const lastDayOf = (expiresAt: string) => formatUkDate(new Date(Date.parse(expiresAt) - 1));

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function stateChip(link: LivestreamLink) {
  // Not "Active"/"Off": those name the livestream's own state on the same card.
  if (link.state === 'revoked') return <Chip tone="inactive">Revoked</Chip>;
  if (link.state === 'expired') return <Chip tone="warning">Expired</Chip>;
  return <Chip tone="success">Valid</Chip>;
}

/**
 * A livestream's public links (decision 096): a link to share with an expiry, or an embed code
 * that plays only on the websites listed; copy, re-issue (a new address, the old one stops),
 * switch off; viewers per link and per site over the last 30 days. Managers change them; every
 * role sees them.
 */
export function PublicLinks({ iccid, canManage }: { iccid: string; canManage: boolean }) {
  const headingId = useId();
  const links = useLivestreamLinks(iccid);
  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <h3 id={headingId} className={styles.heading}>
        Public links
      </h3>
      <p className={styles.muted}>
        Share this livestream with a link that stops on a date, or an embed code that plays only on
        the websites you list.
      </p>
      {links.isPending && <p className={styles.muted}>Loading public links…</p>}
      {links.isError && (
        <p className={styles.error} role="alert">
          {errorMessage(links.error, 'The public links could not be loaded.')}
        </p>
      )}
      {links.isSuccess && (
        <>
          <OwnCode
            views={links.data.ownCode.views}
            sites={links.data.sites.filter((site) => site.linkId === null)}
          />
          {links.data.links.length === 0 ? (
            <p className={styles.empty}>No public links yet.</p>
          ) : (
            <ul className={styles.list}>
              {links.data.links.map((link) => (
                <LinkItem
                  key={link.id}
                  iccid={iccid}
                  link={link}
                  sites={links.data.sites.filter((site) => site.linkId === link.id)}
                  canManage={canManage}
                />
              ))}
            </ul>
          )}
          {links.data.sites.length > 0 && (
            <p className={styles.note}>
              How viewers are counted: each network once a day, browsers only. A website is named
              once a page on it has loaded the player; other plays count as opened directly.
            </p>
          )}
        </>
      )}
      {canManage && <NewLinkForm iccid={iccid} />}
    </section>
  );
}

/**
 * A website's host that wraps only between its parts (after a dot; browsers already wrap after a
 * hyphen), never in the middle of a word: "www.hillside-farm-shop.example" at 390 px.
 */
export function SiteName({ host }: { host: string }) {
  const parts = host.split('.');
  return (
    <>
      {parts.map((part, index) =>
        index < parts.length - 1 ? (
          <Fragment key={index}>
            {`${part}.`}
            <wbr />
          </Fragment>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** The livestream's own embed code: its viewers, and per site when there are any. */
function OwnCode({ views, sites }: { views: number; sites: LivestreamLinkSiteViews[] }) {
  const text = `Your livestream's own code: ${plural(views, 'viewer')} in the last ${livestreamLinkLimits.viewsDays} days.`;
  if (sites.length === 0) return <p className={styles.muted}>{text}</p>;
  return (
    <details className={styles.ownCode}>
      <summary className={styles.muted}>{text}</summary>
      <SitesTable sites={sites} />
    </details>
  );
}

/**
 * Viewers and refused plays per site over the last 30 days: a table, for eyes and readers. A site
 * is one a page load proved (decision 100); plays without one are "opened directly".
 */
function SitesTable({ sites }: { sites: LivestreamLinkSiteViews[] }) {
  if (sites.length === 0) return null;
  return (
    <table className={styles.sites}>
      <caption>Viewers per site, last {livestreamLinkLimits.viewsDays} days</caption>
      <thead>
        <tr>
          <th scope="col">Site</th>
          <th scope="col">Viewers</th>
          <th scope="col">Refused</th>
        </tr>
      </thead>
      <tbody>
        {sites.map((site) => (
          <tr key={site.siteHost}>
            <th scope="row" className={styles.site}>
              {site.siteHost === 'direct' ? 'Opened directly' : <SiteName host={site.siteHost} />}
            </th>
            <td>{site.views}</td>
            <td>{site.refused}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LinkItem({
  iccid,
  link,
  sites,
  canManage,
}: {
  iccid: string;
  link: LivestreamLink;
  sites: LivestreamLinkSiteViews[];
  canManage: boolean;
}) {
  const revoke = useRevokeLivestreamLink();
  const reissue = useReissueLivestreamLink();
  const [copyLabel, showCopy] = useTemporaryLabel<string>(
    link.kind === 'embed' ? 'Copy code' : 'Copy link',
  );
  const isActive = link.state === 'active';
  const onError = (fallback: string) => (error: Error) => {
    if (error instanceof ApiError && error.isReported) return;
    toast.error(errorMessage(error, fallback));
  };

  async function copy() {
    try {
      await navigator.clipboard.writeText(link.embedCode ?? link.url);
      showCopy('Copied!');
    } catch {
      showCopy('Copy failed');
    }
  }

  return (
    <li className={styles.item} aria-label={link.label}>
      <div className={styles.itemHead}>
        <strong>{link.label}</strong>
        <Chip tone="neutral">{link.kind === 'embed' ? 'Embed code' : 'Link'}</Chip>
        {stateChip(link)}
      </div>
      <p className={styles.details}>
        {link.expiresAt
          ? `${link.state === 'expired' ? 'Expired' : 'Works until'} ${lastDayOf(link.expiresAt)}`
          : 'No expiry'}
        {link.allowedDomains.length > 0 && (
          <>
            {' · Plays on '}
            {link.allowedDomains.map((domain, index) => (
              <span key={domain}>
                {index > 0 && ', '}
                <SiteName host={domain} />
              </span>
            ))}
          </>
        )}
        {` · ${plural(link.views, 'viewer')}`}
        {link.refused > 0 && ` · ${plural(link.refused, 'refused play')}`}
      </p>
      {isActive && <code className={styles.address}>{link.url}</code>}
      <SitesTable sites={sites} />
      {isActive && (
        <div className={styles.actions}>
          <Button variant="secondary" onClick={() => void copy()} aria-live="polite">
            {copyLabel}
          </Button>
          {canManage && (
            <>
              <Button
                variant="secondary"
                isLoading={reissue.isPending}
                onClick={() =>
                  reissue.mutate(
                    { camera_id: iccid, link_id: link.id },
                    {
                      onSuccess: () =>
                        toast.success(`${link.label}: new address made; the old one is revoked`),
                      onError: onError('Could not re-issue the link'),
                    },
                  )
                }
              >
                Re-issue
              </Button>
              <Button
                variant="danger"
                isLoading={revoke.isPending}
                onClick={() =>
                  revoke.mutate(
                    { camera_id: iccid, link_id: link.id },
                    {
                      onSuccess: () => toast.success(`${link.label}: revoked`),
                      onError: onError('Could not revoke the link'),
                    },
                  )
                }
              >
                Revoke
              </Button>
            </>
          )}
        </div>
      )}
    </li>
  );
}

function NewLinkForm({ iccid }: { iccid: string }) {
  const create = useCreateLivestreamLink();
  const [kind, setKind] = useState<'link' | 'embed'>('link');
  const [label, setLabel] = useState('');
  const [days, setDays] = useState('30');
  const [expiresOn, setExpiresOn] = useState('');
  const [domains, setDomains] = useState('');
  const [error, setError] = useState<string | null>(null);
  const domainsId = useId();
  const kindName = useId();

  const [hasTried, setHasTried] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setHasTried(true);
    // The date field says under itself what is wrong with a date not finished (decision 115).
    if (expiresOn === unfinishedDate) return;
    const expiry =
      kind === 'link'
        ? expiresOn
          ? { expires_on: expiresOn }
          : { days: Number(days) }
        : expiresOn
          ? { expires_on: expiresOn }
          : {};
    create.mutate(
      {
        camera_id: iccid,
        kind,
        ...(label.trim() ? { label: label.trim() } : {}),
        ...expiry,
        ...(kind === 'embed' ? { allowed_domains: domains.split(/[\s,]+/).filter(Boolean) } : {}),
      },
      {
        onSuccess: ({ link }) => {
          toast.success(`${link.label}: made`);
          setLabel('');
          setDomains('');
          setExpiresOn('');
          setHasTried(false);
        },
        onError: (failure) => setError(errorMessage(failure, 'Could not make the link')),
      },
    );
  }

  return (
    <form className={styles.form} onSubmit={submit} aria-label="New public link">
      <fieldset className={styles.kinds}>
        <legend>New public link</legend>
        <label>
          <input
            type="radio"
            name={kindName}
            checked={kind === 'link'}
            onChange={() => setKind('link')}
          />{' '}
          Link to share (with an expiry)
        </label>
        <label>
          <input
            type="radio"
            name={kindName}
            checked={kind === 'embed'}
            onChange={() => setKind('embed')}
          />{' '}
          Embed code for your website
        </label>
      </fieldset>
      <TextField
        label="Name (optional)"
        value={label}
        maxLength={livestreamLinkLimits.labelMaxLength}
        onChange={(event) => setLabel(event.currentTarget.value)}
      />
      {kind === 'embed' && (
        <div className={styles.field}>
          <label htmlFor={domainsId}>Websites it may play on</label>
          <p className={styles.muted} id={`${domainsId}-hint`}>
            One per line, e.g. www.farm-shop.co.uk; *.farm-shop.co.uk allows every subdomain.
          </p>
          <textarea
            id={domainsId}
            className={styles.textarea}
            rows={3}
            value={domains}
            aria-describedby={`${domainsId}-hint`}
            onChange={(event) => setDomains(event.currentTarget.value)}
          />
        </div>
      )}
      <div className={styles.expiry}>
        {kind === 'link' && (
          <TextField
            label="Works for (days)"
            type="number"
            min={1}
            max={livestreamLinkLimits.maxDays}
            value={days}
            disabled={expiresOn !== ''}
            onChange={(event) => setDays(event.currentTarget.value)}
          />
        )}
        <DateField
          label={kind === 'link' ? 'Or until (last day)' : 'Until (last day, optional)'}
          value={expiresOn}
          showError={hasTried}
          onChange={setExpiresOn}
        />
      </div>
      {error && (
        <p className={styles.error} role="alert">
          {error}
        </p>
      )}
      <div>
        <Button type="submit" isLoading={create.isPending}>
          {kind === 'embed' ? 'Make embed code' : 'Make link'}
        </Button>
      </div>
    </form>
  );
}
