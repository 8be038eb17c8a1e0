/**
 * The library declarations the checker knows, and no other: the closure of
 * the world's roots (`lib.esnext.d.ts` and `lib.webworker.d.ts` with its
 * iterables, `WORLD_ROOTS` of `_world.ts`) in the pinned TypeScript package
 * (every file they name through `/// <reference lib>`, transitively),
 * imported as text.
 *
 * Text imports are part of the module graph: the runtime loads them with the
 * package, so reading them needs no read permission, and no lib file is ever
 * looked up on the disk by name. `lib.dom.d.ts` and its kin are absent on
 * purpose: a program's `/// <reference lib="dom" />` finds nothing.
 * `tests/runner/checker/libs_test.ts` checks that this list is the closure,
 * no more, no less.
 *
 * @module
 */

import es5 from "npm:typescript@6.0.3/lib/lib.es5.d.ts" with { type: "text" };
import decorators from "npm:typescript@6.0.3/lib/lib.decorators.d.ts" with { type: "text" };
import decoratorsLegacy from "npm:typescript@6.0.3/lib/lib.decorators.legacy.d.ts" with {
  type: "text",
};
import es2015Collection from "npm:typescript@6.0.3/lib/lib.es2015.collection.d.ts" with {
  type: "text",
};
import es2015Core from "npm:typescript@6.0.3/lib/lib.es2015.core.d.ts" with { type: "text" };
import es2015 from "npm:typescript@6.0.3/lib/lib.es2015.d.ts" with { type: "text" };
import es2015Generator from "npm:typescript@6.0.3/lib/lib.es2015.generator.d.ts" with {
  type: "text",
};
import es2015Iterable from "npm:typescript@6.0.3/lib/lib.es2015.iterable.d.ts" with {
  type: "text",
};
import es2015Promise from "npm:typescript@6.0.3/lib/lib.es2015.promise.d.ts" with { type: "text" };
import es2015Proxy from "npm:typescript@6.0.3/lib/lib.es2015.proxy.d.ts" with { type: "text" };
import es2015Reflect from "npm:typescript@6.0.3/lib/lib.es2015.reflect.d.ts" with { type: "text" };
import es2015Symbol from "npm:typescript@6.0.3/lib/lib.es2015.symbol.d.ts" with { type: "text" };
import es2015SymbolWellknown from "npm:typescript@6.0.3/lib/lib.es2015.symbol.wellknown.d.ts" with {
  type: "text",
};
import es2016ArrayInclude from "npm:typescript@6.0.3/lib/lib.es2016.array.include.d.ts" with {
  type: "text",
};
import es2016 from "npm:typescript@6.0.3/lib/lib.es2016.d.ts" with { type: "text" };
import es2016Intl from "npm:typescript@6.0.3/lib/lib.es2016.intl.d.ts" with { type: "text" };
import es2017Arraybuffer from "npm:typescript@6.0.3/lib/lib.es2017.arraybuffer.d.ts" with {
  type: "text",
};
import es2017 from "npm:typescript@6.0.3/lib/lib.es2017.d.ts" with { type: "text" };
import es2017Date from "npm:typescript@6.0.3/lib/lib.es2017.date.d.ts" with { type: "text" };
import es2017Intl from "npm:typescript@6.0.3/lib/lib.es2017.intl.d.ts" with { type: "text" };
import es2017Object from "npm:typescript@6.0.3/lib/lib.es2017.object.d.ts" with { type: "text" };
import es2017Sharedmemory from "npm:typescript@6.0.3/lib/lib.es2017.sharedmemory.d.ts" with {
  type: "text",
};
import es2017String from "npm:typescript@6.0.3/lib/lib.es2017.string.d.ts" with { type: "text" };
import es2017Typedarrays from "npm:typescript@6.0.3/lib/lib.es2017.typedarrays.d.ts" with {
  type: "text",
};
import es2018Asyncgenerator from "npm:typescript@6.0.3/lib/lib.es2018.asyncgenerator.d.ts" with {
  type: "text",
};
import es2018Asynciterable from "npm:typescript@6.0.3/lib/lib.es2018.asynciterable.d.ts" with {
  type: "text",
};
import es2018 from "npm:typescript@6.0.3/lib/lib.es2018.d.ts" with { type: "text" };
import es2018Intl from "npm:typescript@6.0.3/lib/lib.es2018.intl.d.ts" with { type: "text" };
import es2018Promise from "npm:typescript@6.0.3/lib/lib.es2018.promise.d.ts" with { type: "text" };
import es2018Regexp from "npm:typescript@6.0.3/lib/lib.es2018.regexp.d.ts" with { type: "text" };
import es2019Array from "npm:typescript@6.0.3/lib/lib.es2019.array.d.ts" with { type: "text" };
import es2019 from "npm:typescript@6.0.3/lib/lib.es2019.d.ts" with { type: "text" };
import es2019Intl from "npm:typescript@6.0.3/lib/lib.es2019.intl.d.ts" with { type: "text" };
import es2019Object from "npm:typescript@6.0.3/lib/lib.es2019.object.d.ts" with { type: "text" };
import es2019String from "npm:typescript@6.0.3/lib/lib.es2019.string.d.ts" with { type: "text" };
import es2019Symbol from "npm:typescript@6.0.3/lib/lib.es2019.symbol.d.ts" with { type: "text" };
import es2020Bigint from "npm:typescript@6.0.3/lib/lib.es2020.bigint.d.ts" with { type: "text" };
import es2020 from "npm:typescript@6.0.3/lib/lib.es2020.d.ts" with { type: "text" };
import es2020Date from "npm:typescript@6.0.3/lib/lib.es2020.date.d.ts" with { type: "text" };
import es2020Intl from "npm:typescript@6.0.3/lib/lib.es2020.intl.d.ts" with { type: "text" };
import es2020Number from "npm:typescript@6.0.3/lib/lib.es2020.number.d.ts" with { type: "text" };
import es2020Promise from "npm:typescript@6.0.3/lib/lib.es2020.promise.d.ts" with { type: "text" };
import es2020Sharedmemory from "npm:typescript@6.0.3/lib/lib.es2020.sharedmemory.d.ts" with {
  type: "text",
};
import es2020String from "npm:typescript@6.0.3/lib/lib.es2020.string.d.ts" with { type: "text" };
import es2020SymbolWellknown from "npm:typescript@6.0.3/lib/lib.es2020.symbol.wellknown.d.ts" with {
  type: "text",
};
import es2021 from "npm:typescript@6.0.3/lib/lib.es2021.d.ts" with { type: "text" };
import es2021Intl from "npm:typescript@6.0.3/lib/lib.es2021.intl.d.ts" with { type: "text" };
import es2021Promise from "npm:typescript@6.0.3/lib/lib.es2021.promise.d.ts" with { type: "text" };
import es2021String from "npm:typescript@6.0.3/lib/lib.es2021.string.d.ts" with { type: "text" };
import es2021Weakref from "npm:typescript@6.0.3/lib/lib.es2021.weakref.d.ts" with { type: "text" };
import es2022Array from "npm:typescript@6.0.3/lib/lib.es2022.array.d.ts" with { type: "text" };
import es2022 from "npm:typescript@6.0.3/lib/lib.es2022.d.ts" with { type: "text" };
import es2022Error from "npm:typescript@6.0.3/lib/lib.es2022.error.d.ts" with { type: "text" };
import es2022Intl from "npm:typescript@6.0.3/lib/lib.es2022.intl.d.ts" with { type: "text" };
import es2022Object from "npm:typescript@6.0.3/lib/lib.es2022.object.d.ts" with { type: "text" };
import es2022Regexp from "npm:typescript@6.0.3/lib/lib.es2022.regexp.d.ts" with { type: "text" };
import es2022String from "npm:typescript@6.0.3/lib/lib.es2022.string.d.ts" with { type: "text" };
import es2023Array from "npm:typescript@6.0.3/lib/lib.es2023.array.d.ts" with { type: "text" };
import es2023Collection from "npm:typescript@6.0.3/lib/lib.es2023.collection.d.ts" with {
  type: "text",
};
import es2023 from "npm:typescript@6.0.3/lib/lib.es2023.d.ts" with { type: "text" };
import es2023Intl from "npm:typescript@6.0.3/lib/lib.es2023.intl.d.ts" with { type: "text" };
import es2024Arraybuffer from "npm:typescript@6.0.3/lib/lib.es2024.arraybuffer.d.ts" with {
  type: "text",
};
import es2024Collection from "npm:typescript@6.0.3/lib/lib.es2024.collection.d.ts" with {
  type: "text",
};
import es2024 from "npm:typescript@6.0.3/lib/lib.es2024.d.ts" with { type: "text" };
import es2024Object from "npm:typescript@6.0.3/lib/lib.es2024.object.d.ts" with { type: "text" };
import es2024Promise from "npm:typescript@6.0.3/lib/lib.es2024.promise.d.ts" with { type: "text" };
import es2024Regexp from "npm:typescript@6.0.3/lib/lib.es2024.regexp.d.ts" with { type: "text" };
import es2024Sharedmemory from "npm:typescript@6.0.3/lib/lib.es2024.sharedmemory.d.ts" with {
  type: "text",
};
import es2024String from "npm:typescript@6.0.3/lib/lib.es2024.string.d.ts" with { type: "text" };
import es2025Collection from "npm:typescript@6.0.3/lib/lib.es2025.collection.d.ts" with {
  type: "text",
};
import es2025 from "npm:typescript@6.0.3/lib/lib.es2025.d.ts" with { type: "text" };
import es2025Float16 from "npm:typescript@6.0.3/lib/lib.es2025.float16.d.ts" with { type: "text" };
import es2025Intl from "npm:typescript@6.0.3/lib/lib.es2025.intl.d.ts" with { type: "text" };
import es2025Iterator from "npm:typescript@6.0.3/lib/lib.es2025.iterator.d.ts" with {
  type: "text",
};
import es2025Promise from "npm:typescript@6.0.3/lib/lib.es2025.promise.d.ts" with { type: "text" };
import es2025Regexp from "npm:typescript@6.0.3/lib/lib.es2025.regexp.d.ts" with { type: "text" };
import esnextArray from "npm:typescript@6.0.3/lib/lib.esnext.array.d.ts" with { type: "text" };
import esnextCollection from "npm:typescript@6.0.3/lib/lib.esnext.collection.d.ts" with {
  type: "text",
};
import esnext from "npm:typescript@6.0.3/lib/lib.esnext.d.ts" with { type: "text" };
import esnextDate from "npm:typescript@6.0.3/lib/lib.esnext.date.d.ts" with { type: "text" };
import esnextDecorators from "npm:typescript@6.0.3/lib/lib.esnext.decorators.d.ts" with {
  type: "text",
};
import esnextDisposable from "npm:typescript@6.0.3/lib/lib.esnext.disposable.d.ts" with {
  type: "text",
};
import esnextError from "npm:typescript@6.0.3/lib/lib.esnext.error.d.ts" with { type: "text" };
import esnextIntl from "npm:typescript@6.0.3/lib/lib.esnext.intl.d.ts" with { type: "text" };
import esnextSharedmemory from "npm:typescript@6.0.3/lib/lib.esnext.sharedmemory.d.ts" with {
  type: "text",
};
import esnextTemporal from "npm:typescript@6.0.3/lib/lib.esnext.temporal.d.ts" with {
  type: "text",
};
import esnextTypedarrays from "npm:typescript@6.0.3/lib/lib.esnext.typedarrays.d.ts" with {
  type: "text",
};
import webworker from "npm:typescript@6.0.3/lib/lib.webworker.d.ts" with { type: "text" };
import webworkerAsynciterable from "npm:typescript@6.0.3/lib/lib.webworker.asynciterable.d.ts" with {
  type: "text",
};
import webworkerIterable from "npm:typescript@6.0.3/lib/lib.webworker.iterable.d.ts" with {
  type: "text",
};

/** Each library file's name (`lib.es5.d.ts`) to its text. */
export const LIB_FILES: ReadonlyMap<string, string> = new Map([
  ["lib.es5.d.ts", es5],
  ["lib.decorators.d.ts", decorators],
  ["lib.decorators.legacy.d.ts", decoratorsLegacy],
  ["lib.es2015.collection.d.ts", es2015Collection],
  ["lib.es2015.core.d.ts", es2015Core],
  ["lib.es2015.d.ts", es2015],
  ["lib.es2015.generator.d.ts", es2015Generator],
  ["lib.es2015.iterable.d.ts", es2015Iterable],
  ["lib.es2015.promise.d.ts", es2015Promise],
  ["lib.es2015.proxy.d.ts", es2015Proxy],
  ["lib.es2015.reflect.d.ts", es2015Reflect],
  ["lib.es2015.symbol.d.ts", es2015Symbol],
  ["lib.es2015.symbol.wellknown.d.ts", es2015SymbolWellknown],
  ["lib.es2016.array.include.d.ts", es2016ArrayInclude],
  ["lib.es2016.d.ts", es2016],
  ["lib.es2016.intl.d.ts", es2016Intl],
  ["lib.es2017.arraybuffer.d.ts", es2017Arraybuffer],
  ["lib.es2017.d.ts", es2017],
  ["lib.es2017.date.d.ts", es2017Date],
  ["lib.es2017.intl.d.ts", es2017Intl],
  ["lib.es2017.object.d.ts", es2017Object],
  ["lib.es2017.sharedmemory.d.ts", es2017Sharedmemory],
  ["lib.es2017.string.d.ts", es2017String],
  ["lib.es2017.typedarrays.d.ts", es2017Typedarrays],
  ["lib.es2018.asyncgenerator.d.ts", es2018Asyncgenerator],
  ["lib.es2018.asynciterable.d.ts", es2018Asynciterable],
  ["lib.es2018.d.ts", es2018],
  ["lib.es2018.intl.d.ts", es2018Intl],
  ["lib.es2018.promise.d.ts", es2018Promise],
  ["lib.es2018.regexp.d.ts", es2018Regexp],
  ["lib.es2019.array.d.ts", es2019Array],
  ["lib.es2019.d.ts", es2019],
  ["lib.es2019.intl.d.ts", es2019Intl],
  ["lib.es2019.object.d.ts", es2019Object],
  ["lib.es2019.string.d.ts", es2019String],
  ["lib.es2019.symbol.d.ts", es2019Symbol],
  ["lib.es2020.bigint.d.ts", es2020Bigint],
  ["lib.es2020.d.ts", es2020],
  ["lib.es2020.date.d.ts", es2020Date],
  ["lib.es2020.intl.d.ts", es2020Intl],
  ["lib.es2020.number.d.ts", es2020Number],
  ["lib.es2020.promise.d.ts", es2020Promise],
  ["lib.es2020.sharedmemory.d.ts", es2020Sharedmemory],
  ["lib.es2020.string.d.ts", es2020String],
  ["lib.es2020.symbol.wellknown.d.ts", es2020SymbolWellknown],
  ["lib.es2021.d.ts", es2021],
  ["lib.es2021.intl.d.ts", es2021Intl],
  ["lib.es2021.promise.d.ts", es2021Promise],
  ["lib.es2021.string.d.ts", es2021String],
  ["lib.es2021.weakref.d.ts", es2021Weakref],
  ["lib.es2022.array.d.ts", es2022Array],
  ["lib.es2022.d.ts", es2022],
  ["lib.es2022.error.d.ts", es2022Error],
  ["lib.es2022.intl.d.ts", es2022Intl],
  ["lib.es2022.object.d.ts", es2022Object],
  ["lib.es2022.regexp.d.ts", es2022Regexp],
  ["lib.es2022.string.d.ts", es2022String],
  ["lib.es2023.array.d.ts", es2023Array],
  ["lib.es2023.collection.d.ts", es2023Collection],
  ["lib.es2023.d.ts", es2023],
  ["lib.es2023.intl.d.ts", es2023Intl],
  ["lib.es2024.arraybuffer.d.ts", es2024Arraybuffer],
  ["lib.es2024.collection.d.ts", es2024Collection],
  ["lib.es2024.d.ts", es2024],
  ["lib.es2024.object.d.ts", es2024Object],
  ["lib.es2024.promise.d.ts", es2024Promise],
  ["lib.es2024.regexp.d.ts", es2024Regexp],
  ["lib.es2024.sharedmemory.d.ts", es2024Sharedmemory],
  ["lib.es2024.string.d.ts", es2024String],
  ["lib.es2025.collection.d.ts", es2025Collection],
  ["lib.es2025.d.ts", es2025],
  ["lib.es2025.float16.d.ts", es2025Float16],
  ["lib.es2025.intl.d.ts", es2025Intl],
  ["lib.es2025.iterator.d.ts", es2025Iterator],
  ["lib.es2025.promise.d.ts", es2025Promise],
  ["lib.es2025.regexp.d.ts", es2025Regexp],
  ["lib.esnext.array.d.ts", esnextArray],
  ["lib.esnext.collection.d.ts", esnextCollection],
  ["lib.esnext.d.ts", esnext],
  ["lib.esnext.date.d.ts", esnextDate],
  ["lib.esnext.decorators.d.ts", esnextDecorators],
  ["lib.esnext.disposable.d.ts", esnextDisposable],
  ["lib.esnext.error.d.ts", esnextError],
  ["lib.esnext.intl.d.ts", esnextIntl],
  ["lib.esnext.sharedmemory.d.ts", esnextSharedmemory],
  ["lib.esnext.temporal.d.ts", esnextTemporal],
  ["lib.esnext.typedarrays.d.ts", esnextTypedarrays],
  ["lib.webworker.d.ts", webworker],
  ["lib.webworker.asynciterable.d.ts", webworkerAsynciterable],
  ["lib.webworker.iterable.d.ts", webworkerIterable],
]);
