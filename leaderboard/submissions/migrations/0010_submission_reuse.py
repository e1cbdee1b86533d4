from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0009_explore_tier"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="reuse",
            field=models.BooleanField(default=True),
        ),
    ]
