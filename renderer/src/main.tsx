/** Entry point: connect to whoever owns the crawls, then render the window. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connect } from './api/connect.js';
import { attach, connectionFailed } from './store/app-store.js';
import { App } from './App.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

connect().then(attach, (err: unknown) => connectionFailed(err instanceof Error ? err.message : String(err)));
