-- wrk script: POST the body in $ANCHOR_BODY as JSON to every target.
wrk.method = "POST"
wrk.body = os.getenv("ANCHOR_BODY")
wrk.headers["Content-Type"] = "application/json"
