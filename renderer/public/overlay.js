// The overlay window's page (app/main/tray/overlay-window.ts): main calls
// renderOverlay(content) with OverlayContent from presentation.ts. textContent
// only: the partial is text, never markup.
'use strict';
window.renderOverlay = (content) => {
  const dot = document.getElementById('dot');
  const level = document.getElementById('level');
  const text = document.getElementById('text');
  dot.className = `dot ${content.dot === 'transcribing' ? 'transcribing' : 'recording'}`;
  level.style.width = `${Math.round(Math.min(1, Math.max(0, Number(content.level) || 0)) * 100)}%`;
  text.textContent = String(content.text || '') || (content.dot === 'transcribing' ? 'Transcribing…' : 'Listening…');
  // The newest words are at the end: keep them in view.
  text.scrollLeft = text.scrollWidth;
  document.title = String(content.label || 'Parakeet');
};
