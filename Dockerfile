FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY hindsight_es ./hindsight_es
COPY streams ./streams
COPY projections ./projections
RUN pip install --no-cache-dir .
ENV HINDSIGHT_DATA_DIR=/data
VOLUME ["/data"]
ENTRYPOINT []
CMD ["hindsight-es", "up"]
