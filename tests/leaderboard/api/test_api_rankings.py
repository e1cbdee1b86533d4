"""GET /api/problems/{name}/rankings?device=...: public."""


def test_rankings_per_device_kind_with_agents_marked(client, judged, alice, robo, bob):
    judged(alice, score_s=2e-5)
    judged(robo, score_s=1e-5)
    judged(bob, score_s=1e-5, device_kind="h100")
    doc = client.get("/api/problems/vectoradd/rankings?device=cpu").json()
    assert doc["problem"] == "vectoradd" and doc["device"] == "cpu" and len(doc["version"]) == 16
    assert [(e["rank"], e["user"], e["is_agent"], e["score_s"]) for e in doc["entries"]] == [
        (1, "robo", True, 1e-5),
        (2, "alice", False, 2e-5),
    ]
    h100 = client.get("/api/problems/vectoradd/rankings?device=h100").json()
    assert [e["user"] for e in h100["entries"]] == ["bob"]


def test_an_unknown_device_kind_is_refused_in_words(client, problems):
    response = client.get("/api/problems/vectoradd/rankings?device=tpu")
    assert response.status_code == 422
    assert "device: Input should be 'cpu'" in response.json()["message"]
