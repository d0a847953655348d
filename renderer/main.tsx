// Renderer entry: connect to the main process, then render.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { installBridge } from './bridge.js';
import { loadKeepMicArmed } from './preferences.js';
import * as actions from './store/actions.js';
import './styles.css';

actions.setArmed(loadKeepMicArmed());
installBridge();

const root = document.getElementById('root');
if (!root) throw new Error('index.html lacks #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
