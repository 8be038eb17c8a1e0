// Private to codec/: how a received value is named in an error message.

export { describeValue as describe } from "./quote.ts";
