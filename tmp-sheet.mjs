import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
const [out, h, ...files] = process.argv.slice(2);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const p = await b.newPage({ viewport: { width: (+process.env.W||392) * files.length, height: +h } });
const imgs = files.map(f => `<div style="width:${(+process.env.W||392)-2}px;height:${h}px;overflow:hidden;border-right:2px solid red"><img src="data:image/png;base64,${readFileSync(f).toString('base64')}"></div>`).join('');
await p.setContent(`<body style="margin:0;display:flex;background:#888">${imgs}</body>`);
await p.screenshot({ path: out });
await b.close();
