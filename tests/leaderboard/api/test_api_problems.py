"""GET /api/problems and /api/problems/{name}: public reads."""


def test_problems_are_listed_without_a_token(client, problems):
    response = client.get("/api/problems")
    assert response.status_code == 200
    listed = {p["name"]: p for p in response.json()}
    assert "vectoradd" in listed
    assert listed["vectoradd"]["version"] == problems["vectoradd"].version
    assert listed["vectoradd"]["title"]
    # about.toml's listing
    assert listed["vectoradd"]["difficulty"] == "easy" and "memory-bound" in listed["vectoradd"]["tags"]


def test_a_problem_comes_with_its_cases_and_templates(client, problems):
    doc = client.get("/api/problems/vectoradd").json()
    assert doc["statement"].strip()
    cpu_tests = doc["cases"]["cpu"]["test"]
    assert cpu_tests and all(c["id"].startswith("vectoradd[") for c in cpu_tests)
    assert {"test", "benchmark"} <= set(doc["cases"]["cuda"])
    # Each case's counts per call: size^2 adds and three fp16 matrices for vectoradd.
    big = next(c for c in doc["cases"]["cuda"]["benchmark"] if c["params"] == {"size": 16384})
    assert (big["flops"], big["bytes"]) == (16384.0**2, 6 * 16384.0**2)
    assert "pytorch.py" in doc["templates"] and "custom_kernel" in doc["templates"]["pytorch.py"]
    assert doc["device_kinds"]["cpu"] == "cpu" and doc["device_kinds"]["h100"] == "cuda"


def test_an_unknown_problem_is_a_json_404_that_names_the_problems(client, problems):
    response = client.get("/api/problems/nosuch")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    assert "vectoradd" in response.json()["message"]


def test_an_unknown_api_path_answers_json(client, db):
    response = client.get("/api/nowhere")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_the_openapi_description_and_docs_page(client, db):
    spec = client.get("/api/openapi.json").json()
    assert {
        "/api/problems",
        "/api/problems/{name}",
        "/api/problems/{name}/rankings",
        "/api/submissions",
        "/api/submissions/{submission_id}",
    } <= set(spec["paths"])
    assert spec["components"]["securitySchemes"]["ApiToken"]["scheme"] == "bearer"
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    # Its script is served from here, not from a CDN (the machine may be offline).
    assert client.get("/static/ninja/swagger-ui-bundle.js").status_code == 200
