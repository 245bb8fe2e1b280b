import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, credentials, request } from './api';
import { go, useHashPath } from './hooks';
import { SessionsView } from './views/sessions';
import { SessionView } from './views/session';

type Access = { state: 'checking' } | { state: 'key'; problem?: string } | { state: 'open'; mode: 'api-key' | 'none' };

/**
 * The session inspector. The API key is asked once and kept for the browser session (sessionStorage); when the
 * service runs without authentication (AUTH_MODE=none) the page just opens, with an optional tenant.
 */
function App() {
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  const path = useHashPath();

  const check = async (key: string) => {
    try {
      await request('/sessions?limit=1', {}, key);
      setAccess({ state: 'open', mode: key ? 'api-key' : 'none' });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        if (key) credentials.apiKey = '';
        setAccess({ state: 'key', ...(key && { problem: 'That API key was not accepted.' }) });
      } else setAccess({ state: 'key', problem: `The service did not answer: ${(error as Error).message}` });
    }
  };
  useEffect(() => void check(credentials.apiKey), []);

  const signOut = () => {
    credentials.apiKey = '';
    setAccess({ state: 'key' });
  };

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to the content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          Context Ledger <span>session inspector</span>
        </a>
        {access.state === 'open' && access.mode === 'none' && <TenantPicker />}
        {access.state === 'open' && access.mode === 'api-key' && (
          <button type="button" class="link" onClick={signOut}>
            Forget API key
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {access.state === 'checking' && <p class="muted">Connecting…</p>}
        {access.state === 'key' && <KeyForm problem={access.problem} onKey={(k) => void check(k)} />}
        {access.state === 'open' && <Route path={path} />}
      </main>
    </>
  );
}

function Route({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 's' && parts[1]) {
    const tab = parts[2] === 'effective' || parts[2] === 'tokens' ? parts[2] : 'timeline';
    return (
      <SessionView key={parts[1]} sessionId={parts[1]} tab={tab} blockId={tab === 'timeline' ? parts[3] : undefined} />
    );
  }
  return <SessionsView />;
}

function KeyForm({ problem, onKey }: { problem?: string; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="panel key-form"
      onSubmit={(e) => {
        e.preventDefault();
        credentials.apiKey = key.trim();
        onKey(key.trim());
      }}
    >
      <h1>Sign in with an API key</h1>
      <p class="muted">
        The key of your tenant (API_KEYS). It is kept in this browser tab's session only and sent as a Bearer token to
        the service's /v1 API.
      </p>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <label>
        API key
        <input
          type="password"
          name="apiKey"
          autoComplete="off"
          required
          autoFocus
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}

/** Authentication is off: the tenant is the X-Tenant header (default `default`). */
function TenantPicker() {
  const [tenant, setTenant] = useState(credentials.tenant);
  return (
    <form
      class="tenant"
      onSubmit={(e) => {
        e.preventDefault();
        credentials.tenant = tenant.trim();
        go('/');
        location.reload();
      }}
    >
      <span class="warn-badge" title="The service runs with AUTH_MODE=none">
        auth off
      </span>
      <label>
        Tenant{' '}
        <input value={tenant} placeholder="default" onInput={(e) => setTenant((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Switch</button>
    </form>
  );
}

render(<App />, document.getElementById('app')!);
