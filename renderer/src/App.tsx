/** The window: crawls on the left; the selected crawl's toolbar, tabs and view on the right. */
import { useEffect, useRef } from 'react';
import { EmptyState, ErrorState, Spinner } from './components/Bits.js';
import { Icon } from './components/Icon.js';
import { closeConfirm, dismissNotice, dismissToast, getApi, openCompare, showNewCrawl, useApp, setExportMenu } from './store/app-store.js';
import { CompareView } from './views/CompareView.js';
import { ErrorsView } from './views/ErrorsView.js';
import { IssuesView } from './views/IssuesView.js';
import { NewCrawl } from './views/NewCrawl.js';
import { Overview } from './views/Overview.js';
import { Sidebar } from './views/Sidebar.js';
import { SitemapTree } from './views/SitemapTree.js';
import { Tabs, Toolbar } from './views/Toolbar.js';
import { UrlsView } from './views/UrlsView.js';
import { handleShortcut } from './views/shortcuts.js';

export function App() {
  const connection = useApp((s) => s.connection);
  const message = useApp((s) => s.connectionMessage);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (handleShortcut(e)) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // Menu items of the Electron app arrive as events.
  useEffect(() => {
    if (connection !== 'ready') return;
    return getApi().on('menuCommand', ({ command }) => {
      if (command === 'newCrawl') showNewCrawl();
      if (command === 'exportCsv') {
        const s = useApp.getState();
        if (s.selectedId && s.screen === 'crawl') setExportMenu(true);
      }
    });
  }, [connection]);

  if (connection === 'connecting') {
    return (
      <div className="fullscreen">
        <Spinner label="Connecting to Spinneret…" />
      </div>
    );
  }
  if (connection === 'failed') {
    return (
      <div className="fullscreen">
        <ErrorState title="Spinneret could not start" message={message ?? 'Unknown error.'} onRetry={() => location.reload()} />
      </div>
    );
  }
  return (
    <div className="app">
      {connection === 'lost' && (
        <div className="conn-lost" role="alert">
          <Icon name="alert" size={14} /> {message}
          <button type="button" className="btn btn-small" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      )}
      <div className="shell">
        <Sidebar />
        <main className="main">
          <Notices />
          <MainArea />
        </main>
      </div>
      <Toasts />
      <ConfirmDialog />
    </div>
  );
}

function MainArea() {
  const screen = useApp((s) => s.screen);
  const crawl = useApp((s) => s.crawls.find((c) => c.id === s.selectedId));
  const tab = useApp((s) => s.tab);
  if (screen === 'new') return <NewCrawl />;
  if (screen === 'compare') return <CompareView />;
  if (!crawl) {
    return (
      <EmptyState title="No crawl selected">
        <button type="button" className="btn btn-primary" onClick={showNewCrawl}>
          <Icon name="plus" size={14} /> New crawl
        </button>
      </EmptyState>
    );
  }
  return (
    <>
      <Toolbar crawl={crawl} />
      <Tabs crawl={crawl} />
      <div className="view" role="tabpanel" data-view={tab}>
        {tab === 'overview' && <Overview crawl={crawl} />}
        {tab === 'urls' && <UrlsView crawl={crawl} />}
        {tab === 'sitemaps' && <SitemapTree crawl={crawl} />}
        {tab === 'issues' && <IssuesView crawl={crawl} />}
        {tab === 'errors' && <ErrorsView crawl={crawl} />}
      </div>
    </>
  );
}

function Toasts() {
  const toasts = useApp((s) => s.toasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          {t.action && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                dismissToast(t.id);
                t.action!.run();
              }}
              data-testid="toast-action"
            >
              {t.action.label}
            </button>
          )}
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismissToast(t.id)}>
            <Icon name="close" size={12} />
          </button>
        </div>
      ))}
    </div>
  );
}

/** Recrawls that finished with findings worse than their base's: they stay until dismissed. */
function Notices() {
  const notices = useApp((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices">
      {notices.map((n) => (
        <div key={n.id} className="banner banner-warn notice" role="alert" data-testid="recrawl-notice" data-worse={n.worse.join(' ')}>
          <Icon name="alert" />
          <div className="notice-text">
            {n.text} <span className="mono small">{n.worse.join(', ')}</span>
          </div>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              dismissNotice(n.id);
              openCompare({ oldId: n.baseId, newId: n.crawlId });
            }}
          >
            Compare with previous
          </button>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismissNotice(n.id)}>
            <Icon name="close" size={12} />
          </button>
        </div>
      ))}
    </div>
  );
}

function ConfirmDialog() {
  const confirm = useApp((s) => s.confirm);
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!confirm) return;
    ref.current?.focus();
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && closeConfirm();
    document.addEventListener('keydown', esc);
    return () => document.removeEventListener('keydown', esc);
  }, [confirm]);
  if (!confirm) return null;
  return (
    <div className="overlay" onMouseDown={closeConfirm}>
      <div
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="dlg-title"
        aria-describedby="dlg-body"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <h2 id="dlg-title">{confirm.title}</h2>
        <p id="dlg-body">{confirm.body}</p>
        <div className="dialog-actions">
          <button type="button" className="btn" ref={ref} onClick={closeConfirm}>
            Cancel
          </button>
          <button
            type="button"
            className={`btn ${confirm.danger ? 'btn-danger' : 'btn-primary'}`}
            onClick={() => {
              closeConfirm();
              confirm.onConfirm();
            }}
            data-testid="confirm"
          >
            {confirm.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
