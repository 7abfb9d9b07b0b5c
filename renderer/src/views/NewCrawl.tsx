/** The new-crawl form: start URL or sitemaps, a mode preset, advanced settings folded away. */
import { useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { CrawlSettings } from '../../../shared/model.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Bits.js';
import { MODE_PRESETS, applyMode, modeOf } from '../logic/presets.js';
import {
  checkHttpUrl,
  defaultsPatchFromForm,
  formFromSettings,
  settingsFromForm,
  suggestName,
  validateForm,
  withCrawlMode,
  type CrawlForm,
} from '../logic/validation.js';
import { checkList, fileTooBig, listError, utf8Bytes } from '../logic/list-input.js';
import { createCrawl, saveDefaults, useApp } from '../store/app-store.js';

export function NewCrawl() {
  const defaults = useApp((s) => s.defaults);
  const hasCrawls = useApp((s) => s.crawls.length > 0);
  if (!defaults) return <Spinner label="Loading default settings…" />;
  return <NewCrawlForm defaults={defaults} first={!hasCrawls} />;
}

function NewCrawlForm({ defaults, first }: { defaults: CrawlSettings; first: boolean }) {
  const [form, setForm] = useState<CrawlForm>(() => formFromSettings({ ...defaults, startUrl: '', sitemapUrls: [] }));
  const [touched, setTouched] = useState<Partial<Record<keyof CrawlForm, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [showSitemaps, setShowSitemaps] = useState(false);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const errors = useMemo(() => validateForm(form), [form]);
  const currentMode = modeOf(form);
  const isList = form.mode === 'list';
  // List mode: the list's text is kept apart from the form (it may be megabytes) and checked a moment after typing.
  const [listText, setListText] = useState('');
  const [listFile, setListFile] = useState<string | null>(null);
  const [listTouched, setListTouched] = useState(false);
  /** What the service said of the list (BAD_LIST), until it is edited. */
  const [serviceListError, setServiceListError] = useState<string | null>(null);
  const deferredList = useDeferredValue(listText);
  const listCheck = useMemo(() => (isList ? checkList(deferredList) : null), [deferredList, isList]);
  const listBytes = useMemo(() => (isList ? utf8Bytes(listText) : 0), [listText, isList]);
  const listProblem = serviceListError ?? (listCheck ? listError(listCheck, listBytes) : null);
  const valid = Object.keys(errors).length === 0 && (!isList || listProblem === null);

  // Reset to fresh defaults when they are saved from elsewhere (the mode and its links option stay).
  useEffect(() => {
    setForm((f) => ({
      ...formFromSettings({ ...defaults, startUrl: f.startUrl, sitemapUrls: [] }, f.name),
      sitemapUrls: f.sitemapUrls,
      mode: f.mode,
      ...(f.mode === 'list' ? { fetchPages: true, followLinks: f.followLinks } : {}),
    }));
  }, [defaults]);

  const update = <K extends keyof CrawlForm>(key: K, value: CrawlForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setTouched((t) => ({ ...t, [key]: true }));
  };
  /** Errors show as soon as something is typed; "required" ones wait for a submit. */
  const shown = (key: keyof CrawlForm): string | undefined => {
    const msg = errors[key];
    if (!msg) return undefined;
    if (submitted) return msg;
    if (key === 'startUrl') return form.startUrl.trim() ? msg : undefined;
    return touched[key] ? msg : undefined;
  };
  const startCheck = form.startUrl.trim() ? checkHttpUrl(form.startUrl) : null;
  const advancedErrors = (
    [
      'concurrency',
      'perHostConcurrency',
      'delayMs',
      'timeoutMs',
      'idleTimeoutMs',
      'sitemapTimeoutMs',
      'retries',
      'maxDepth',
      'maxUrls',
      'userAgent',
      'include',
      'exclude',
    ] as const
  ).filter((k) => errors[k]);

  const submit = async (start: boolean) => {
    setSubmitted(true);
    setListTouched(true);
    if (!valid) {
      if (advancedErrors.length) setAdvancedOpen(true);
      return;
    }
    setBusy(true);
    const name = form.name.trim() || (isList ? listName(listCheck?.first, listCheck?.urls ?? 0) : suggestName(form));
    await createCrawl({ name, settings: settingsFromForm(form), ...(isList ? { list: listText } : {}) }, start, (e) => {
      // The service's word on the list goes next to it.
      if (isList && e.code === 'BAD_LIST') {
        setServiceListError(e.message);
        return true;
      }
      return false;
    });
    setBusy(false);
  };

  return (
    <div className="page-scroll">
      <form
        className="newcrawl"
        noValidate
        aria-label="New crawl"
        onSubmit={(e) => {
          e.preventDefault();
          void submit(true);
        }}
      >
        <header className="newcrawl-head">
          <h1>{first ? 'Crawl your first site' : 'New crawl'}</h1>
          <p className="muted">
            {isList
              ? 'List mode fetches the URLs of a list you paste or upload — an old sitemap, a URL export — with the same columns and findings as any crawl, to check them against the live site.'
              : 'Spinneret reads robots.txt and every sitemap it announces, fetches the pages and follows their links, and keeps every URL it finds in one de-duplicated list you can filter and export.'}
          </p>
        </header>

        <section className="card form-card">
          <div className="field mode-switch">
            <span className="field-label" id="crawl-mode-label">
              Start from
            </span>
            <div className="seg" role="radiogroup" aria-labelledby="crawl-mode-label">
              {(
                [
                  ['spider', 'A site (spider)'],
                  ['list', 'A list of URLs'],
                ] as const
              ).map(([m, label]) => (
                <button
                  key={m}
                  type="button"
                  role="radio"
                  aria-checked={form.mode === m}
                  className={`seg-btn${form.mode === m ? ' selected' : ''}`}
                  onClick={() => setForm((f) => withCrawlMode(f, m))}
                  data-crawl-mode={m}
                >
                  {label}
                </button>
              ))}
            </div>
          </div>
          {isList ? (
            <ListField
              text={listText}
              fileName={listFile}
              check={listCheck}
              error={listTouched || submitted || serviceListError ? listProblem : null}
              followLinks={form.followLinks}
              onFollowLinks={(v) => update('followLinks', v)}
              onText={(t, file) => {
                setListText(t);
                setListFile(file);
                setServiceListError(null);
                if (file) setListTouched(true);
              }}
              onBlur={() => setListTouched(true)}
            />
          ) : (
            <>
              <Field
                label="Start URL"
                htmlFor="f-start"
                error={shown('startUrl')}
                hint={startCheck?.ok ? undefined : 'The site address, like https://www.example.com/'}
              >
                <div className="input-row">
                  <input
                    id="f-start"
                    className={`input input-lg${shown('startUrl') ? ' invalid' : startCheck?.ok ? ' valid' : ''}`}
                    type="text"
                    inputMode="url"
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="https://www.example.com/"
                    value={form.startUrl}
                    onChange={(e) => update('startUrl', e.target.value)}
                    aria-invalid={!!shown('startUrl')}
                    aria-describedby="f-start-msg"
                    autoFocus
                  />
                </div>
              </Field>
              {startCheck?.suggestion && (
                <button type="button" className="link-btn suggestion" onClick={() => update('startUrl', startCheck.suggestion!)} data-testid="use-suggestion">
                  Use {startCheck.suggestion}
                </button>
              )}

              {!showSitemaps && !form.sitemapUrls ? (
                <button type="button" className="link-btn" onClick={() => setShowSitemaps(true)} data-testid="add-sitemaps">
                  <Icon name="plus" size={12} /> Or start from sitemap URLs directly
                </button>
              ) : (
                <Field
                  label="Sitemap URLs"
                  htmlFor="f-sitemaps"
                  error={shown('sitemapUrls')}
                  hint="One a line. When given, robots.txt is not searched for sitemaps: crawling starts from these."
                >
                  <textarea
                    id="f-sitemaps"
                    className={`input mono${shown('sitemapUrls') ? ' invalid' : ''}`}
                    rows={3}
                    spellCheck={false}
                    placeholder={'https://www.example.com/sitemap_index.xml\nhttps://www.example.com/news-sitemap.xml'}
                    value={form.sitemapUrls}
                    onChange={(e) => update('sitemapUrls', e.target.value)}
                  />
                </Field>
              )}

              <div className="field">
                <span className="field-label" id="mode-label">
                  Mode
                </span>
                <div className="modes" role="radiogroup" aria-labelledby="mode-label">
                  {MODE_PRESETS.map((p) => {
                    return (
                      <button
                        type="button"
                        role="radio"
                        aria-checked={currentMode === p.id}
                        key={p.id}
                        className={`mode${currentMode === p.id ? ' selected' : ''}`}
                        onClick={() => setForm((f) => applyMode(f, p.id))}
                        data-mode={p.id}
                      >
                        <span className="mode-title">{p.label}</span>
                        <span className="mode-desc">{p.description}</span>
                      </button>
                    );
                  })}
                </div>
                {currentMode === 'custom' && (
                  <div className="hint">
                    Custom: {form.fetchPages && !form.followLinks ? 'pages are fetched, but the links in them are not followed.' : 'see the advanced settings.'}
                  </div>
                )}
              </div>
            </>
          )}

          <Field label="Name" htmlFor="f-name" error={shown('name')} optional>
            <input
              id="f-name"
              className="input"
              type="text"
              maxLength={200}
              placeholder={(isList ? listName(listCheck?.first, listCheck?.urls ?? 0) : suggestName(form)) || 'Named after the site when left empty'}
              value={form.name}
              onChange={(e) => update('name', e.target.value)}
            />
          </Field>
        </section>

        <details className="card advanced" open={advancedOpen} onToggle={(e) => setAdvancedOpen((e.target as HTMLDetailsElement).open)}>
          <summary>
            <Icon name="chevronRight" size={14} className="summary-caret" />
            Advanced settings
            <span className="muted summary-note">
              {form.concurrency} at once · {form.delayMs} ms delay · {scopeLabel(form.scope)} · robots.txt {form.respectRobots ? 'respected' : 'ignored'}
            </span>
            {advancedErrors.length > 0 && submitted && <span className="badge badge-error">{advancedErrors.length} to fix</span>}
          </summary>
          <div className="grid-2">
            <NumField
              form={form}
              k="concurrency"
              label="Concurrency"
              unit="requests"
              update={update}
              error={shown('concurrency')}
              hint="Requests in flight at once, all hosts together."
            />
            <NumField form={form} k="perHostConcurrency" label="Per-host concurrency" unit="requests" update={update} error={shown('perHostConcurrency')} />
            <NumField
              form={form}
              k="delayMs"
              label="Delay between requests"
              unit="ms"
              update={update}
              error={shown('delayMs')}
              hint="To one host. Retry-After is always honoured."
            />
            <NumField
              form={form}
              k="timeoutMs"
              label="Timeout"
              unit="ms"
              update={update}
              error={shown('timeoutMs')}
              hint="One attempt of a page or robots.txt, headers and body."
            />
            <NumField
              form={form}
              k="idleTimeoutMs"
              label="Idle timeout"
              unit="ms"
              update={update}
              error={shown('idleTimeoutMs')}
              hint="A response that sends nothing this long is cut (and retried)."
            />
            <NumField
              form={form}
              k="sitemapTimeoutMs"
              label="Sitemap timeout"
              unit="ms"
              update={update}
              error={shown('sitemapTimeoutMs')}
              hint="One attempt of a sitemap: 50 MiB takes minutes on a slow link."
            />
            <NumField
              form={form}
              k="maxDepth"
              label="Max link depth"
              update={update}
              error={shown('maxDepth')}
              placeholder="No limit"
              hint="Sitemap entries are depth 0."
            />
            <NumField form={form} k="maxUrls" label="Max URLs" update={update} error={shown('maxUrls')} placeholder="No limit" />
            <NumField form={form} k="retries" label="Retries" update={update} error={shown('retries')} />
            <Field label="Scope" htmlFor="f-scope">
              <select id="f-scope" className="input" value={form.scope} onChange={(e) => update('scope', e.target.value as CrawlForm['scope'])}>
                <option value="host">Same host only</option>
                <option value="domain">Same registrable domain (subdomains too)</option>
                <option value="any">Any host</option>
              </select>
            </Field>
            <Field label="User agent" htmlFor="f-ua" error={shown('userAgent')} wide>
              <input
                id="f-ua"
                className="input mono"
                type="text"
                spellCheck={false}
                value={form.userAgent}
                onChange={(e) => update('userAgent', e.target.value)}
              />
            </Field>
            <Field
              label="Include patterns"
              htmlFor="f-include"
              error={shown('include')}
              hint="Regular expressions, one a line: only matching URLs are admitted."
              optional
            >
              <textarea
                id="f-include"
                className="input mono"
                rows={3}
                spellCheck={false}
                placeholder="^https://www\.example\.com/blog/"
                value={form.include}
                onChange={(e) => update('include', e.target.value)}
              />
            </Field>
            <Field
              label="Exclude patterns"
              htmlFor="f-exclude"
              error={shown('exclude')}
              hint="Regular expressions, one a line: matching URLs are left out."
              optional
            >
              <textarea
                id="f-exclude"
                className="input mono"
                rows={3}
                spellCheck={false}
                placeholder="\?sessionid="
                value={form.exclude}
                onChange={(e) => update('exclude', e.target.value)}
              />
            </Field>
            <label className="check wide">
              <input type="checkbox" checked={form.respectRobots} onChange={(e) => update('respectRobots', e.target.checked)} />
              <span>
                Respect robots.txt
                <span className="hint"> Disallowed URLs are recorded as blocked and never fetched.</span>
              </span>
            </label>
            <label className="check wide">
              <input type="checkbox" checked={form.fetchPages} onChange={(e) => update('fetchPages', e.target.checked)} />
              <span>
                Fetch pages<span className="hint"> Off: list sitemap URLs without requesting them.</span>
              </span>
            </label>
            <label className="check wide">
              <input type="checkbox" checked={form.followLinks} disabled={!form.fetchPages} onChange={(e) => update('followLinks', e.target.checked)} />
              <span>
                Follow links<span className="hint"> Add the links found in fetched pages to the crawl.</span>
              </span>
            </label>
          </div>
          <div className="advanced-foot">
            <button
              type="button"
              className="btn"
              disabled={advancedErrors.length > 0}
              onClick={() => void saveDefaults(defaultsPatchFromForm(form))}
              title="Use these settings for every new crawl"
            >
              Save as defaults
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() =>
                setForm((f) =>
                  withCrawlMode(
                    { ...formFromSettings({ ...defaults, startUrl: f.startUrl, sitemapUrls: [] }, f.name), sitemapUrls: f.sitemapUrls, mode: 'spider' },
                    f.mode,
                  ),
                )
              }
            >
              Reset to defaults
            </button>
          </div>
        </details>

        <footer className="newcrawl-foot">
          {submitted && !valid && (
            <span className="form-error" role="alert">
              Fix the highlighted fields first.
            </span>
          )}
          <button type="button" className="btn" disabled={busy} onClick={() => void submit(false)}>
            Create without starting
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="create-start">
            <Icon name="play" size={14} /> Start crawl
          </button>
        </footer>
      </form>
    </div>
  );
}

function scopeLabel(s: CrawlForm['scope']): string {
  return s === 'host' ? 'same host' : s === 'domain' ? 'same domain' : 'any host';
}

function Field({
  label,
  htmlFor,
  error,
  hint,
  optional,
  wide,
  children,
}: {
  label: string;
  htmlFor: string;
  error?: string;
  hint?: string;
  optional?: boolean;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`field${wide ? ' wide' : ''}`}>
      <label className="field-label" htmlFor={htmlFor}>
        {label}
        {optional && <span className="muted"> (optional)</span>}
      </label>
      {children}
      {error ? (
        <div className="field-error" id={`${htmlFor}-msg`} role="alert">
          {error.split('\n').map((line, i) => (
            <div key={i}>{line}</div>
          ))}
        </div>
      ) : hint ? (
        <div className="hint" id={`${htmlFor}-msg`}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}

type NumKey = 'concurrency' | 'perHostConcurrency' | 'delayMs' | 'timeoutMs' | 'idleTimeoutMs' | 'sitemapTimeoutMs' | 'maxDepth' | 'maxUrls' | 'retries';

function NumField({
  form,
  k,
  label,
  unit,
  update,
  error,
  hint,
  placeholder,
}: {
  form: CrawlForm;
  k: NumKey;
  label: string;
  unit?: string;
  update: (key: NumKey, value: string) => void;
  error?: string;
  hint?: string;
  placeholder?: string;
}) {
  const id = `f-${k}`;
  return (
    <Field label={label} htmlFor={id} error={error} hint={hint}>
      <div className="input-unit">
        <input
          id={id}
          className={`input num${error ? ' invalid' : ''}`}
          type="text"
          inputMode="numeric"
          placeholder={placeholder}
          value={form[k]}
          onChange={(e) => update(k, e.target.value)}
          aria-invalid={!!error}
        />
        {unit && <span className="unit">{unit}</span>}
      </div>
    </Field>
  );
}

/** A list crawl's suggested name: "List: www.example.com (120 URLs)". */
function listName(first: string | undefined, urls: number): string {
  if (!first) return '';
  try {
    return `List: ${new URL(first).host} (${urls.toLocaleString('en-US')} ${urls === 1 ? 'URL' : 'URLs'})`;
  } catch {
    return '';
  }
}

/**
 * List mode's URLs: pasted into the textarea, or read from a file in the page (never uploaded as a
 * file: its text goes with createCrawl), up to 8 MiB; the links option; the list's problems beside it.
 */
function ListField({
  text,
  fileName,
  check,
  error,
  followLinks,
  onFollowLinks,
  onText,
  onBlur,
}: {
  text: string;
  fileName: string | null;
  check: ReturnType<typeof checkList> | null;
  error: string | null;
  followLinks: boolean;
  onFollowLinks(v: boolean): void;
  onText(text: string, file: string | null): void;
  onBlur(): void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [reading, setReading] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const pick = async (file: File) => {
    setFileError(null);
    const big = fileTooBig(file.size);
    if (big) {
      setFileError(big);
      return;
    }
    setReading(true);
    try {
      onText(await file.text(), file.name);
    } catch (e) {
      setFileError(`Could not read ${file.name}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setReading(false);
    }
  };
  const shownError = fileError ?? error;
  // A multi-megabyte list is not put in the textarea: it would make typing slow, and nobody edits it there.
  const big = text.length > 256 * 1024;
  return (
    <>
      <div className="field">
        <label className="field-label" htmlFor="f-list">
          URLs to fetch
        </label>
        {big ? (
          <div className="input list-big mono" id="f-list" data-testid="list-big">
            {fileName ?? 'The pasted list'}: {(text.length / 1024 / 1024).toFixed(1)} MiB, shown here only by its count.
          </div>
        ) : (
          <textarea
            id="f-list"
            className={`input mono${shownError ? ' invalid' : ''}`}
            rows={8}
            spellCheck={false}
            placeholder={'https://www.example.com/\nhttps://www.example.com/old-page.html\nhttps://www.example.com/shop/'}
            value={text}
            onChange={(e) => onText(e.target.value, null)}
            onBlur={onBlur}
            aria-invalid={!!shownError}
            aria-describedby="f-list-msg"
            data-testid="list-text"
          />
        )}
        <div className="list-tools">
          <button type="button" className="btn btn-small" onClick={() => input.current?.click()} disabled={reading} data-testid="list-upload">
            <Icon name="upload" size={12} /> {reading ? 'Reading…' : 'Upload a file…'}
          </button>
          <input
            ref={input}
            type="file"
            accept=".txt,.csv,.tsv,.xml,text/plain,text/csv"
            hidden
            data-testid="list-file"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) void pick(f);
            }}
          />
          {(fileName || big) && (
            <button type="button" className="link-btn small" onClick={() => onText('', null)}>
              Clear the list
            </button>
          )}
          <span className="list-count" data-testid="list-count" data-urls={check?.urls ?? 0}>
            {fileName && <span className="mono">{fileName} · </span>}
            {check && check.urls > 0
              ? `${check.urls.toLocaleString('en-US')} ${check.urls === 1 ? 'URL' : 'URLs'}${check.repeats ? ` (${check.repeats.toLocaleString('en-US')} repeats dropped)` : ''}`
              : 'No URL yet'}
          </span>
        </div>
        {shownError ? (
          <div className="field-error" id="f-list-msg" role="alert" data-testid="list-error">
            {shownError.split('\n').map((line, i) => (
              <div key={i}>{line}</div>
            ))}
          </div>
        ) : (
          <div className="hint" id="f-list-msg">
            One URL a line, or a CSV whose first column holds them (a header line is fine); blank lines and # comments are skipped. A file is read here in the
            window, up to 8 MiB; for longer lists use the CLI: <span className="mono">npm run crawl -- crawl --list FILE</span>.
          </div>
        )}
      </div>
      <label className="check">
        <input type="checkbox" checked={followLinks} onChange={(e) => onFollowLinks(e.target.checked)} data-testid="list-follow-links" />
        <span>
          Follow links
          <span className="hint"> Off: only the listed URLs are fetched (redirects are still followed). On: the links found in them are crawled too.</span>
        </span>
      </label>
    </>
  );
}
