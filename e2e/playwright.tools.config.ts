import { defineConfig } from '@playwright/test';
import suite from './playwright.config.ts';

/** Tools that drive the product but are not tests, e.g. recording the setup video. */
export default defineConfig({ ...suite, testDir: './tools' });
