/** Hands the browser a file to save: a Blob through an <a download>. */
export function downloadBlob(blob: Blob, name: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  // The download has taken the Blob's bytes long before this.
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
