{#- The course's page for a submission whose notebook has no autograded copy, in place of
    nbgrader 0.9.6's formgrade_404.tpl, which imports 'formgrade_macros.tpl', a file 0.9.6 no
    longer ships (every such page answered 500). Rendered in the autoescaping environment;
    `why` says which of the two cases this is. -#}
{#- upstream-replaces: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/formgrade_404.tpl sha256:0eb265b320c3197ab3dece5a3a5dc87a79788bada0ca6a465979529d262814ca -#}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>{{ resources.notebook_id }}: nothing to grade</title>
<link rel="stylesheet" href="{{ resources.base_url }}/formgrader/static/node_modules/bootstrap/dist/css/bootstrap.min.css" />
<link rel="stylesheet" href="{{ resources.base_url }}/formgrader/static/css/formgrade.css" />
</head>
<body>
<div class="container">
  <nav aria-label="Breadcrumb">
    <ol class="breadcrumb">
      <li><a href="{{ resources.base_url }}/formgrader/gradebook">Manual Grading</a></li>
      <li><a href="{{ resources.base_url }}/formgrader/gradebook/{{ resources.assignment_id|urlencode }}">{{ resources.assignment_id }}</a></li>
      <li><a href="{{ resources.base_url }}/formgrader/gradebook/{{ resources.assignment_id|urlencode }}/{{ resources.notebook_id|urlencode }}">{{ resources.notebook_id }}</a></li>
      <li class="active" aria-current="page">
        {%- if resources.last_name and resources.first_name -%}
        {{ resources.last_name }}, {{ resources.first_name }}
        {%- else -%}
        {{ resources.student }}
        {%- endif -%}
      </li>
    </ol>
  </nav>
  <main>
    <h1>{{ resources.notebook_id }}: nothing to grade</h1>
    <p>{{ why }}</p>
    <p><a href="{{ resources.base_url }}/formgrader/manage_students/{{ resources.student|urlencode }}/{{ resources.assignment_id|urlencode }}">Back to this student's notebooks</a></p>
  </main>
</div>
</body>
</html>
