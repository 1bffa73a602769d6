// Attachment bytes for the AI tests: the smallest files that are what their magic numbers say.

/** A GIF of `frames` 1×1 frames. */
export function gif(frames: number): Uint8Array {
  const header = [...Buffer.from('GIF89a'), 1, 0, 1, 0, 0, 0, 0];
  const frame = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4c, 0x01, 0];
  return new Uint8Array([...header, ...Array(frames).fill(frame).flat(), 0x3b]);
}

/** A PDF whose page tree holds `pages` pages. */
export function pdf(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from(
      { length: pages },
      (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`,
    ),
  ];
  return new TextEncoder().encode(
    `%PDF-1.4\n${objects.join('\n')}\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
  );
}
