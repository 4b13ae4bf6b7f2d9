import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server serves dist/ at /app/ (packages/server/src/http/web-app.ts); `npm run dev` proxies the API to a
// Runyard server on RUNYARD_DEV_API (default http://127.0.0.1:8080).
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': process.env.RUNYARD_DEV_API ?? 'http://127.0.0.1:8080' } },
});
