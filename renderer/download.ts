// Saves text as a file from the page: a Blob URL clicked through an <a
// download>. No CSP change is needed (a download is not a fetch, a frame or
// a navigation); Electron shows its save dialog, a browser its download.
export function saveTextFile(name: string, content: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Not at once: revoking during the click's handling can abort the download in some engines.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
