// The window: header (name, status), view switcher, banners, the shown view.
import { useEffect, useRef } from 'react';
import { Nav, VIEWS } from './components/Nav.js';
import { NoticeArea } from './components/NoticeArea.js';
import { StatusChips } from './components/StatusChips.js';
import { installHoldToTalk } from './hold-to-talk.js';
import { installShortcuts } from './keyboard.js';
import { useApp } from './store/hooks.js';
import type { View } from './store/types.js';
import { DevicesView } from './views/DevicesView.js';
import { DictateView } from './views/DictateView.js';
import { FilesView } from './views/FilesView.js';
import { HistoryView } from './views/HistoryView.js';
import { MeetingView } from './views/MeetingView.js';
import { ModelsView } from './views/ModelsView.js';
import { SettingsView } from './views/SettingsView.js';

function CurrentView({ view }: { view: View }) {
  switch (view) {
    case 'dictate':
      return <DictateView />;
    case 'files':
      return <FilesView />;
    case 'history':
      return <HistoryView />;
    case 'devices':
      return <DevicesView />;
    case 'models':
      return <ModelsView />;
    case 'settings':
      return <SettingsView />;
    case 'meeting':
      return <MeetingView />;
  }
}

export function App() {
  const view = useApp((s) => s.ui.view);
  const main = useRef<HTMLElement>(null);
  useEffect(() => installShortcuts(), []);
  useEffect(() => installHoldToTalk(), []);
  // The window's title names the view (screen readers announce it, and it tells windows apart).
  useEffect(() => {
    document.title = `${VIEWS.find((v) => v.id === view)?.label ?? 'Parakeet'} — Parakeet`;
  }, [view]);
  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>
        Skip to content
      </a>
      <header className="app-header">
        <h1 className="app-title">
          <span className="app-mark" aria-hidden="true" />
          Parakeet
        </h1>
        <Nav />
        <StatusChips />
      </header>
      <NoticeArea />
      <main id="main" className="app-main" ref={main} tabIndex={-1}>
        <CurrentView view={view} />
      </main>
    </div>
  );
}
