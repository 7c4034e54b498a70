/** What is counted and what is not, said in every email's footer and on every page of the site. */
export const PRIVACY_LINE = "Privacy: links in editions go through citydaily, which counts how often each is followed, in total; nobody's opens or clicks are tracked (no pixels, cookies or reader ids).";
