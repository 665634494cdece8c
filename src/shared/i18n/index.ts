import { DEFAULT_LANGUAGE, isLanguage, type Language } from "../languages";
import * as cs from "./cs";
import * as en from "./en";
import * as es from "./es";
import * as fr from "./fr";
import * as it from "./it";
import * as pt from "./pt";
import type { Catalogue, InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/**
 * Every language's catalogue, for the server and the web app. The widget does not import this file: it
 * carries English (./en) and fetches another language's widget texts when it needs them (built into
 * /widget-<lang>.json by scripts/build-widget.ts).
 */
export const CATALOGUES: Record<Language, Catalogue> = { en, fr, es, it, pt, cs };

const of = (language: string | undefined) => CATALOGUES[isLanguage(language) ? language : DEFAULT_LANGUAGE];

export const widgetTexts = (language?: string): WidgetTexts => of(language).widget;
export const loaderTexts = (language?: string): LoaderTexts => of(language).loader;
export const inACallTexts = (language?: string): InACallTexts => of(language).inACall;

export { fillIn } from "./types";
export type { Catalogue, InACallTexts, LoaderTexts, WidgetTexts };
